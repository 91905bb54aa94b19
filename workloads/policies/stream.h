/* The streamed half of the driver (stream.c): what the node-program writer
 * (lower.c) calls when a rank is lowered into windows and slots the models
 * give back (models/nodeprog.h, np_source and np_seq), and the run of an
 * op source (source.h). Private to workloads/policies/. */
#ifndef POL_STREAM_H
#define POL_STREAM_H

#include "lower.h"
#include "source.h"

struct pol_srank;

uint32_t pst_add_cmd(struct pol_srank *s, const struct nic_cmd *cmd);
uint32_t pst_add_qcmd(struct pol_srank *s, const struct qcmd *qc);
uint32_t pst_add_kernel(struct pol_srank *s, const char *name, uint32_t n_wgs,
                        const struct kstep *steps, size_t n);
uint32_t pst_kernel_open(struct pol_srank *s, const char *name, uint32_t n_wgs, bool persistent);
void pst_kernel_step(struct pol_srank *s, uint32_t k, const struct kstep *st);
void pst_kernel_close(struct pol_srank *s, uint32_t k);
void pst_host_shared(struct pol_srank *s);
void pst_add_host(struct pol_srank *s, const struct hstep *st);
void pst_host_loop_end(struct pol_srank *s);
uint32_t pst_flag_new(struct pol_srank *s);
uint32_t pst_recv_flag(struct pol_srank *s, const struct wl_op *o);
struct pol_recv pst_recv_of(struct pol_srank *s, const struct wl_op *o);
bool pst_recv_work_after(const struct pol_recv *r);

#endif
