/* Declared outputs and the report they fill. A component type (or a
 * workload kind) declares each value it reports at the end of a run once,
 * with its unit and a one-line doc; it reports by handle (the index in its
 * declaration table), never by a free-form key; readers (the policy layer,
 * the limits note) take the declaration as a checked handle; `trigsim
 * outputs` lists the declarations. After SST's statistics
 * (SST_ELI_DOCUMENT_STATISTICS: name, description, units per component;
 * registerStatistic hands back what the component adds data through), as
 * param.h follows SST_ELI_DOCUMENT_PARAMS. */
#ifndef SIM_OUTPUTS_H
#define SIM_OUTPUTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "units.h"

struct sim_comp;

enum sim_out_flag {
  SIM_OUT_REAL = 1u,  /* a double (a mean, a ratio); else an int64 */
  SIM_OUT_SOME = 2u,  /* not every component (or run) reports it: its doc says when */
  SIM_OUT_TOTAL = 4u, /* one value for all components of the type, reported by one
                         of them under the first part of its name ("net" of
                         "net.sw0": "net.switches.packets") */
  SIM_OUT_PHASE = 8u, /* a phase of the run's time breakdown (CSV phase_KEY_ps),
                         not a counter */
};

/* One declared output. */
struct sim_out_decl {
  const char *key;   /* "main_done"; the report's key is "<component>.<key>" */
  enum unit_dim dim; /* UNIT_TIME (ps), UNIT_SIZE (bytes) or UNIT_NONE (a count, a ratio) */
  unsigned flags;    /* enum sim_out_flag */
  const char *doc;   /* one line */
};

/* The outputs of one component type or workload kind. */
struct sim_outputs {
  const char *name;  /* "cpu", "phase", "cg": `trigsim outputs NAME` */
  const char *where; /* the keys as the report names them: "node<i>.cpu.KEY" */
  const struct sim_out_decl *decls;
  size_t n_decls;
};

/* Declaring, inside a table of struct sim_out_decl indexed by the type's
 * enum of handles:
 *   [CPU_OUT_MAIN_DONE] = OUT(main_done, UNIT_TIME, "when the main thread ended"),
 *   [NIC_OUT_IN_USE_MEAN] = OUT_F(entries_in_use_mean, UNIT_NONE, SIM_OUT_REAL, "..."),
 * and the group, checking that the table fills the enum (static or not):
 *   SIM_OUT_GROUP(cpu_outputs, "cpu", "node<i>.cpu.KEY", cpu_outs, CPU_OUT_COUNT); */
#define OUT(key, dim, doc) {#key, dim, 0u, doc}
#define OUT_F(key, dim, flags, doc) {#key, dim, flags, doc}
#define SIM_OUT_GROUP(var, name, where, decls, count)  \
  const struct sim_outputs var = {name, where, decls, count}; \
  _Static_assert(sizeof(decls) / sizeof((decls)[0]) == (count), #decls " fills its enum")

/* Whether G is well formed: every entry of its table declared (no hole in
 * the enum's designated initializers), keys unique and made of [a-z0-9_.]
 * (a phase's may hold spaces: "cpu compute"),
 * units those a report prints. False and *ERR (g_free) naming the first
 * fault. */
bool sim_outputs_valid(const struct sim_outputs *g, char **err);

/* Index of D in G, or -1 when D is not one of G's declarations. */
int sim_outputs_index(const struct sim_outputs *g, const struct sim_out_decl *d);

/* "time (ps)", "size (B)", "count", "real": D's unit as listed and written. */
const char *sim_out_unit(const struct sim_out_decl *d);

/* Prints G as a table: key, unit, doc, the doc marked [phase], [total] or
 * [not always] (SIM_OUT_PHASE, SIM_OUT_TOTAL, SIM_OUT_SOME). */
void sim_outputs_print(const struct sim_outputs *g, FILE *out);

/* ---- the report ---- */

/* One reported value, in insertion order. */
struct sim_report_entry {
  char *key;          /* "node0.nic.triggers_matched" */
  enum unit_dim dim;  /* how to print it */
  bool is_real;
  int64_t i;
  double d;
  /* Its declaration (NULL: a copy read back from text, a test's entry),
   * and the component that reported it (SIM_OUT_NO_COMP: none). */
  const struct sim_out_decl *decl;
  uint32_t comp;
};
#define SIM_OUT_NO_COMP UINT32_MAX

struct sim_report {
  struct sim_report_entry *entries;
  size_t n, cap;
  void *index;        /* GHashTable: key -> 1 + index of its first entry */
  /* By component id: 1 + index of the component's first entry (0: none);
   * a component's entries are adjacent (sim_finish runs one finish at a
   * time). */
  size_t *comp_first;
  size_t comp_cap;
  /* Borrowed, may be NULL: the run's time breakdown, which components add
   * their contributions to from their finish (sim_report_phase). */
  struct sim_report *phases;
};

void sim_report_init(struct sim_report *r);
void sim_report_clear(struct sim_report *r);
const struct sim_report_entry *sim_report_find(const struct sim_report *r, const char *key);

/* A component's finish reports its declared output I (its index in the
 * type's table, the type's enum): the entry "<C's name>.<key>" (a
 * SIM_OUT_TOTAL one under the first part of the name), with the declared
 * unit. An integer declaration takes sim_out_int, a real one sim_out_real. */
void sim_out_int(struct sim_report *r, const struct sim_comp *c, unsigned i, int64_t v);
void sim_out_real(struct sim_report *r, const struct sim_comp *c, unsigned i, double v);

/* An output of no component (a workload kind's): the entry
 * "<PREFIX>.<D's key>", or D's key when PREFIX is NULL. */
void sim_out_put_int(struct sim_report *r, const char *prefix, const struct sim_out_decl *d,
                     int64_t v);
void sim_out_put_real(struct sim_report *r, const char *prefix, const struct sim_out_decl *d,
                      double v);

/* Adds V to phase D (SIM_OUT_PHASE) of R->phases, its entry created at 0
 * when new: a component's contribution to the run's breakdown. Nothing when
 * R has no phases report (a run that wants counters only). */
void sim_report_phase(struct sim_report *r, const struct sim_out_decl *d, int64_t v);

/* Adds every entry of FROM into INTO by key (summed where INTO has the
 * key, appended with its declaration where not): phases over several runs. */
void sim_report_sum(struct sim_report *into, const struct sim_report *from);

/* Reading by handle: C's entry for D, D an output of C's type (else a
 * fault: g_error naming both); NULL when C did not report it (a
 * SIM_OUT_SOME output, or before sim_finish). sim_out_value also requires
 * the entry, an integer one. */
const struct sim_report_entry *sim_out_get(const struct sim_report *r, const struct sim_comp *c,
                                           const struct sim_out_decl *d);
int64_t sim_out_value(const struct sim_report *r, const struct sim_comp *c,
                      const struct sim_out_decl *d);

/* Whether the entries R holds from index FIRST on are exactly what C's
 * finish must report: each an output its type declares, reported by C
 * once, and every declaration without SIM_OUT_SOME reported. False and
 * *ERR (g_free) naming the first fault. sim_finish checks every
 * component so. */
bool sim_out_check(const struct sim_report *r, size_t first, const struct sim_comp *c, char **err);

/* Undeclared entries: for copies (a sweep's points read back from their
 * text) and tests. Models and workload kinds report through the
 * declarations above. */
void sim_report_int(struct sim_report *r, const char *key, enum unit_dim dim, int64_t v);
void sim_report_real(struct sim_report *r, const char *key, double v);

#endif
