/* Scenarios: YAML files (libyaml) read into a tree whose every node keeps
 * its file, line and column, merged with their `include:`s and with
 * command-line `--set path=value` assignments, then bound to the declared
 * parameters of the hardware groups, the workload and the policies.
 * Every user error is one message "file:line:col: key.path: expected X, got Y". */
#ifndef SIM_SCENARIO_H
#define SIM_SCENARIO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "param.h"

enum sc_kind { SC_SCALAR, SC_MAP, SC_SEQ };

struct sc_node;

/* A map entry: the key, where the key was written, and the value. */
struct sc_pair {
  char *key;
  const char *file; /* interned, like sc_node.file */
  int line, col;
  struct sc_node *value;
};

struct sc_node {
  enum sc_kind kind;
  const char *file; /* interned: lives as long as the process */
  int line, col;    /* 1-based */
  char *scalar;     /* SC_SCALAR: the text */
  bool quoted;      /* SC_SCALAR: written in quotes */
  struct sc_pair *pairs; /* SC_MAP, in file order */
  size_t n_pairs;
  struct sc_node **items; /* SC_SEQ */
  size_t n_items;
};

/* Reads PATH and its includes (relative to the including file; cycles and
 * missing files are errors) into one tree: the including file's keys
 * override the included ones', maps merge recursively, the top-level
 * `include:` key is consumed. Returns NULL and sets *ERR (g_free) on error. */
struct sc_node *sc_load_file(const char *path, char **err);

/* Parses TEXT as a YAML document, with marks naming SOURCE ("--set"). */
struct sc_node *sc_load_string(const char *text, const char *source, char **err);

/* Applies "a.b.c=value" (value parsed as YAML) to ROOT, creating maps on
 * the way; errors are reported against "--set". */
bool sc_apply_set(struct sc_node *root, const char *assignment, char **err);

void sc_node_free(struct sc_node *n);

/* A deep copy of N, marks included (sc_node_free). */
struct sc_node *sc_node_copy(const struct sc_node *n);

/* Puts VALUE (consumed) at the dotted PATH under map ROOT as --set does,
 * creating maps on the way; the key written is marked with AT's location
 * (a sweep axis), the value keeps its own marks. */
bool sc_put(struct sc_node *root, const char *path, struct sc_node *value,
            const struct sc_node *at, char **err);

/* The value under KEY in map M, or NULL (also when M is not a map). */
const struct sc_node *sc_map_get(const struct sc_node *m, const char *key);

/* The node at dotted PATH under ROOT ("hardware.cpu.helper_threads"), or
 * its deepest ancestor there (ROOT when none is), for an error's location. */
const struct sc_node *sc_node_near(const struct sc_node *root, const char *path);

/* A message "file:line:col: PATH: " followed by the printf-formatted text,
 * newly allocated (g_free). */
char *sc_error_at(const struct sc_node *n, const char *path, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* "file:line:col: PATH: expected WANT, got <what N is>" ('x', a mapping,
 * nothing ...), newly allocated (g_free). */
char *sc_error_expected(const struct sc_node *n, const char *path, const char *want);

/* True when every key of map M is one of KEYS; else false and *ERR at the
 * first other key ("PATH.key: expected one of ..., got 'key'", with a
 * did-you-mean hint). PATH NULL: top-level keys. */
bool sc_check_keys(const struct sc_node *m, const char *path, const char *const *keys,
                   size_t n_keys, char **err);

/* Binds map node M (found at key path PATH, e.g. "hardware.gpu") onto a
 * config struct of group G: starts from the defaults, then parses each key.
 * Unknown keys are errors with a did-you-mean hint; a non-scalar value where
 * a scalar is expected is an error. M may be NULL: defaults only.
 * SKIP_KEY, if not NULL, names one key of M that is not a parameter (the
 * workload's "kind"). */
bool sc_bind_group(const struct sc_node *m, const char *path, const struct par_group *g,
                   const char *skip_key, void *config, char **err);

/* What a scenario may name: the program's tables, passed in by the caller so
 * that this module knows no model. */
struct sc_catalog {
  const struct par_group *const *hardware; /* hardware.<name> sections */
  size_t n_hardware;
  const struct par_group *const *workloads; /* workload.kind picks one */
  size_t n_workloads;
  /* The names allowed in policies: [...] (*N of them; a program may add
   * policies while it runs, so the list is asked for). */
  const char *const *(*policies)(size_t *n);
  /* The policy a scenario of workload W runs without `policies:` (NULL, or
   * returning NULL: the first of policies). */
  const char *(*default_policy)(size_t w);
};

struct scenario {
  char *path;
  char *name;          /* name: or the file's base name without .yaml */
  uint64_t seed;       /* seed:, default 1 */
  void **hardware;     /* one config per catalog hardware group (sc_hardware) */
  size_t workload;     /* index into the catalog's workloads */
  void *workload_config;
  char **policies;     /* at least one; default the catalog's first */
  size_t n_policies;
  const struct sc_catalog *catalog;
  struct sc_node *root; /* the merged tree, for later checks */
  struct sc_attached *attached; /* what its runs share (sc_attachment) */
  /* How runs track their critical path (engine.h), as the command line
   * asks (--critical-path): off, or the whole chain (also with a trace);
   * neither: the time per category only. */
  bool cp_off, cp_chain;
};

/* What the runs of scenario SC share, made once (an input file opened and
 * read through a first pass once, for `validate`'s check and every
 * policy's run): the value under KEY, made by MAKE(ARG, ERR) the first
 * time (and kept, freed by FREE with the scenario, unless MAKE fails:
 * NULL and *ERR, said again at the next call). Safe from several threads. */
void *sc_attachment(const struct scenario *sc, const char *key, void *(*make)(void *arg, char **err),
                    void *arg, void (*free_fn)(void *data), char **err);

/* Loads PATH with its includes and applies its `overrides:` and SETS: the
 * tree that scenario_from_tree binds (sc_node_free). NULL and *ERR on error. */
struct sc_node *sc_load_scenario_tree(const char *path, const char *const *sets, size_t n_sets,
                                      char **err);

/* Binds tree ROOT (consumed, also on error) loaded from PATH. */
struct scenario *scenario_from_tree(struct sc_node *root, const char *path,
                                    const struct sc_catalog *cat, char **err);

/* Loads, merges, applies SETS (N_SETS "path=value" strings, then the file's
 * `overrides:`, the command line winning) and binds a whole scenario.
 * Top-level keys: include, name, seed, hardware, workload (required, with
 * `kind`), policies, overrides, `sweep` and `plot` (read by sweep.h and
 * tools/reproduce.sh, ignored here), and provenance (free-form, how a
 * measured profile was made; not read). Returns NULL and sets *ERR on any error. */
struct scenario *scenario_load(const char *path, const char *const *sets, size_t n_sets,
                               const struct sc_catalog *cat, char **err);

void scenario_free(struct scenario *s);

/* One resolved parameter: its dotted path, its final value as text (as
 * written, or the declared default) and where that value came from:
 * "default", "FILE:LINE:COL" (a scenario, an include, its overrides or a
 * sweep axis) or "--set". */
struct sc_setting {
  char *path, *value, *origin;
};

/* Every parameter of S after includes, overrides and --set: name, seed,
 * policies, workload.kind, each workload parameter, then each hardware
 * group's, in declaration order. *N entries (sc_settings_free). */
struct sc_setting *sc_resolve(const struct scenario *s, size_t *n);
void sc_settings_free(struct sc_setting *v, size_t n);

/* The bound config of hardware group G (one of the catalog's: a
 * programming error otherwise), by its declaration, never its position:
 * `const struct gpu_config *gpu = sc_hardware(sc, &gpu_params);`. */
const void *sc_hardware(const struct scenario *s, const struct par_group *g);

#endif
