// NVSHMEM's start for the two-process probes (probes/nvshmem_parts.cu,
// probes/spmv_get.cu): one process a GPU, PE RANK of 2 on GPU RANK,
// bootstrapped by a unique id that PE 0 writes to IDFILE (renamed into
// place, so that PE 1 never reads half of it) and PE 1 waits for (up to
// 30 s). 0 when NVSHMEM is up; 1, said, when the id cannot be passed. A
// probe includes probe.cuh first.
#ifndef TRIGSIM_PROBE_NVSHMEM_CUH
#define TRIGSIM_PROBE_NVSHMEM_CUH

#include <nvshmem.h>
#include <nvshmemx.h>

#include <cstdio>
#include <string>
#include <unistd.h>

static inline int probe_nvshmem_init(int rank, const char *idfile) {
  CK(cudaSetDevice(rank));
  nvshmemx_uniqueid_t id = NVSHMEMX_UNIQUEID_INITIALIZER;
  std::string path = idfile;
  if (rank == 0) {
    nvshmemx_get_uniqueid(&id);
    std::string tmp = path + ".tmp";
    FILE *f = fopen(tmp.c_str(), "wb");
    if (!f || fwrite(&id, sizeof id, 1, f) != 1 || fclose(f) || rename(tmp.c_str(), idfile)) {
      fprintf(stderr, PROBE_NAME ": cannot write %s\n", idfile);
      return 1;
    }
  } else {
    FILE *f = NULL;
    for (int i = 0; i < 30000 && !(f = fopen(idfile, "rb")); i++) usleep(1000);
    if (!f || fread(&id, sizeof id, 1, f) != 1) {
      fprintf(stderr, PROBE_NAME ": cannot read %s\n", idfile);
      return 1;
    }
    fclose(f);
  }
  nvshmemx_init_attr_t attr = NVSHMEMX_INIT_ATTR_INITIALIZER;
  nvshmemx_set_attr_uniqueid_args(rank, 2, &id, &attr);
  nvshmemx_init_attr(NVSHMEMX_INIT_WITH_UNIQUEID, &attr);
  return 0;
}

#endif
