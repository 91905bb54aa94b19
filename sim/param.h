/* Parameters: declared once (type, unit, default, range, one-line doc), then
 * validated, bound into a component's config struct, and listed by
 * `trigsim params`. The SST ELI idea: one declaration serves the code, the
 * checker and the documentation. */
#ifndef SIM_PARAM_H
#define SIM_PARAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "simtime.h"
#include "units.h"

enum par_type {
  PAR_INT,       /* int64_t, plain integer */
  PAR_FLOAT,     /* double, plain number */
  PAR_BOOL,      /* bool: true/false */
  PAR_TIME,      /* int64_t picoseconds */
  PAR_BANDWIDTH, /* int64_t bits per second */
  PAR_SIZE,      /* int64_t bytes */
  PAR_FREQ,      /* int64_t hertz */
  PAR_ENUM,      /* int: index into the '|'-separated choices */
  PAR_STRING,    /* char *, owned by the config (freed by par_group_free_config) */
  PAR_TABLE,     /* struct par_table: "X:Y, X:Y, ..." points, X integers
                    strictly rising, Y times ("1:3us, 8:5us"); "" is empty */
  PAR_TREE,      /* const void *: a YAML list or mapping the group reads itself
                    (a struct sc_node of the scenario, which outlives the
                    config); NULL when absent. Its default must be "". */
};

/* A small piecewise-linear table, e.g. kernel launch latency against queue
 * depth: "1:3us, 8:5us, 64:12us". Stored inline in the config. */
#define PAR_TABLE_MAX 16
struct par_table {
  int n;                     /* 0: empty */
  int64_t x[PAR_TABLE_MAX];  /* strictly increasing */
  sim_time y[PAR_TABLE_MAX]; /* picoseconds */
};

/* Y at X: linear between points (rounded to nearest), clamped to the first
 * and last point outside them. The table must not be empty. */
int64_t par_table_eval(const struct par_table *t, int64_t x);

struct par_decl {
  const char *key;     /* "launch_latency" */
  enum par_type type;
  const char *def;     /* default, written as in a scenario: "1.5us" */
  const char *min;     /* inclusive bounds as text, NULL for none */
  const char *max;
  const char *choices; /* PAR_ENUM only: "star|fat-tree|torus" */
  const char *doc;     /* one line */
  size_t offset;       /* where the value lives in the owner's config struct */
};

/* A named set of declarations: one per component type or workload. */
struct par_group {
  const char *name;    /* "gpu", "link", "phold" */
  const char *doc;     /* one line on what the group configures */
  const struct par_decl *decls;
  size_t n_decls;
  size_t config_size;  /* sizeof the config struct the offsets point into */
  /* Rules across parameters that ranges cannot say (may be NULL): false and
   * *ERR "expected X, got Y" (g_free) when CONFIG breaks them. */
  bool (*check)(const void *config, char **err);
};

#define PAR_COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* The one way to declare a parameter, inside a table of struct par_decl,
 * with PAR_CONFIG defined as the config struct the values live in:
 *   #define PAR_CONFIG struct gpu_config
 *   PAR(clock, PAR_FREQ, "1GHz", "1MHz", "100GHz", "core clock")
 *   PAR(kind, PAR_ENUM, "apu", NULL, NULL, "apu|pcie", "how the bus joins")
 *   #undef PAR_CONFIG
 * Six arguments (key, type, default, min, max, doc), or seven with the
 * choices before the doc (PAR_ENUM; NULL for the other types). */
#define PAR(...) PAR_PICK_(__VA_ARGS__, PAR_7_, PAR_6_, ~)(__VA_ARGS__)
#define PAR_PICK_(a1, a2, a3, a4, a5, a6, a7, name, ...) name
#define PAR_6_(key, type, def, min, max, doc) PAR_7_(key, type, def, min, max, NULL, doc)
#define PAR_7_(key, type, def, min, max, choices, doc) \
  {#key, type, def, min, max, choices, doc, offsetof(PAR_CONFIG, key)}

/* The dimension a type's values carry (UNIT_NONE for INT/FLOAT/BOOL/...). */
enum unit_dim par_type_dim(enum par_type type);

/* "a time", "an integer", "one of star, fat-tree, torus", ... for messages. */
char *par_expected(const struct par_decl *d);


/* Parses TEXT for D, checks its range and stores it into CONFIG. On error
 * returns false and sets *ERR (g_free) to "expected X, got Y". */
bool par_set(const struct par_decl *d, void *config, const char *text, char **err);

/* Fills CONFIG with every declaration's default. The defaults are part of the
 * program, so a bad one is an internal error (assertion). */
void par_group_defaults(const struct par_group *g, void *config);

/* Frees the strings a config owns (PAR_STRING fields). */
void par_group_free_config(const struct par_group *g, void *config);

const struct par_decl *par_group_find(const struct par_group *g, const char *key);

/* The declared key nearest to KEY by edit distance, or NULL if none is close
 * enough to be a plausible typo. */
const char *par_group_suggest(const struct par_group *g, const char *key);

/* Nearest of N candidate strings to WORD, or NULL when none is close. */
const char *par_suggest(const char *word, const char *const *candidates, size_t n);

/* Prints the group as a table: key, type/unit, default, range, doc. */
void par_group_print(const struct par_group *g, FILE *out);

/* The same table with one row: ONLY's (one of G's declarations; NULL: every
 * row, as par_group_print). */
void par_group_print_only(const struct par_group *g, const struct par_decl *only, FILE *out);

#endif
