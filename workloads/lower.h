/* Lowering a program (program.h) onto the hardware models: the node-program
 * builder the policies (policy_*.c) write into, the policy table, and the
 * driver that builds the system, runs it and fills a sim_result.
 * DESIGN.md Sec. 2: a policy is one file; the driver is shared. */
#ifndef WL_LOWER_H
#define WL_LOWER_H

#include <glib.h>
#include <stdbool.h>

#include "program.h"
#include "result.h"
#include "system.h"
#include "workload.h"

/* A node program under construction; it owns every array it points at.
 * Free with pol_prog_clear. */
struct pol_prog {
  struct nodeprog np; /* valid after pol_prog_seal */
  GArray *kernels, *qcmds, *cmds, *host;
  GPtrArray *steps;   /* each kernel's step array */
};

void pol_prog_init(struct pol_prog *pp);
void pol_prog_clear(struct pol_prog *pp);
/* Points np at the arrays; call after the last add. */
void pol_prog_seal(struct pol_prog *pp, uint32_t n_flags);

/* Each returns the index the models name the item by. */
uint32_t pol_add_cmd(struct pol_prog *pp, struct nic_cmd cmd);
uint32_t pol_add_qcmd(struct pol_prog *pp, struct qcmd qc);
uint32_t pol_add_kernel(struct pol_prog *pp, const char *name, uint32_t n_wgs,
                        const struct kstep *steps, size_t n_steps); /* copies STEPS */
void pol_add_host(struct pol_prog *pp, struct hstep st);

/* One policy: how a program's ranks become node programs. */
struct pol_type {
  const char *name;
  /* Who watches receive I of RANK's flag (enum pdev); the sender's put
   * must name it. */
  uint8_t (*recv_watcher)(const struct wl_program *p, uint32_t rank, size_t i);
  /* Lowers RANK into PP (initialised, sealed by the caller). False and
   * *ERR when the program has a shape this policy does not lower yet. */
  bool (*lower)(const struct wl_program *p, uint32_t rank, const struct hw_config *hw,
                struct pol_prog *pp, char **err);
  /* Report key after "node<i>." that holds when a rank's program is done. */
  const char *done_key;
};

/* The NIC command OP (a put, triggered put or post) that carries send op I
 * of RANK to its receive, whose flag POL's recv_watcher names. */
struct nic_cmd pol_put_for(const struct pol_type *pol, const struct wl_program *p, uint32_t rank,
                           size_t i, uint8_t op);

/* The host network stack (cpu, hdn): a two-sided send of op I of RANK, and
 * a two-sided receive (op I) completed when its flag is set. */
void pol_host_send(const struct pol_type *pol, const struct wl_program *p, uint32_t rank,
                   size_t i, struct pol_prog *pp);
void pol_host_recv(const struct wl_program *p, uint32_t rank, size_t i, struct pol_prog *pp);

extern const struct pol_type pol_cpu, pol_hdn, pol_gds, pol_gputn;
const struct pol_type *pol_find(const char *name);

/* The hardware groups of a scenario, in the catalog's order. */
struct hw_config pol_hw_of(const struct scenario *sc);

/* Lowers P under POLICY onto HW, runs it and fills OUT: total_ps = when
 * rank p->measured_rank finished, phases (see lower.c), counters (every
 * component's report). False and *ERR (g_free) on a user error. */
bool pol_run(const struct wl_program *p, const char *policy, const struct hw_config *hw,
             uint64_t seed, struct trace *trace, struct sim_result *out, char **err);

#endif
