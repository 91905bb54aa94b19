/* Sweep points spread over MPI ranks: built with OpenMPI when CMake finds it
 * (TRIGSIM_MPI) and active when started by mpirun; rank r runs the points
 * with index % size == r, rank 0 gathers every result. Otherwise one rank. */
#ifndef SIM_SWEEP_MPI_H
#define SIM_SWEEP_MPI_H

#include <stdbool.h>

#include "sweep_run.h"

struct swm {
  int rank, size;
  bool active; /* MPI_Init was called */
};

/* Initialises MPI when the process was started by mpirun (OpenMPI, PMIx or
 * PMI environment); else rank 0 of 1. */
void swm_init(struct swm *m);
void swm_finalize(struct swm *m);

/* The largest STATUS over the ranks (every rank calls it). */
int swm_max_status(const struct swm *m, int status);

/* Sends every rank's finished points to rank 0, which puts them into R.
 * False on rank 0 when a message could not be decoded. */
bool swm_gather(const struct swm *m, struct swr_results *r);

#endif
