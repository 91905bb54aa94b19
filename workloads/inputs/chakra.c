/* Chakra execution traces in and out (chakra.h): the reader, a cursor per
 * rank over the length-delimited messages of chakra.proto (decoded by
 * protobuf-c's generated code, every allocation within a budget set by the
 * message's size), the whole-program reader on top of it, the workload,
 * and the writer. The schema and what each field means: MLCommons Chakra,
 * schema/protobuf/et_def.proto (v0.0.4 to v1.0.0), and how ASTRA-sim reads
 * it (astra-sim/workload/Workload.cc: pg_name, comm_src/dst/tag, the
 * process_group:init metadata node; Chakra's feeder_v3: ctrl and data
 * dependencies both). */
#include "chakra.h"

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "chakra.pb-c.h"
#include "checks.h"
#include "coll.h"
#include "input.h"
#include "nodeprog.h"
#include "outfile.h"
#include "scenario.h"
#include "source.h"
#include "workload.h"

#define PAR_CONFIG struct chakra_config
static const struct par_decl chakra_decls[] = {
    PAR(files, PAR_STRING, "", NULL, NULL, NULL,
      "the traces' prefix: rank r reads PREFIX.r.et (Chakra's naming; relative to the scenario)"),
    PAR(ranks, PAR_INT, "0", "0", "1048576", NULL,
      "ranks read; 0: every PREFIX.r.et from r = 0 on"),
    PAR(compute, PAR_ENUM, "auto", NULL, NULL, "auto|duration|work",
      "a compute node's time: duration = its recorded duration_micros; work = its num_ops "
      "flops and tensor_size bytes through the GPU model over `wgs` WGs; auto = trigsim's "
      "own attributes when the trace has them (exported by trigsim), else the duration, "
      "else the work"),
    PAR(wgs, PAR_INT, "0", "0", "16777216", NULL,
      "WGs of a compute node: read as work, its work split over them; of a recorded duration "
      "on the GPU, each lasting it (keep them within one wave); and of a collective's "
      "reductions; 0: one per CU"),
    PAR(cpu_ops, PAR_ENUM, "auto", NULL, NULL, "auto|host|skip",
      "nodes with is_cpu_op: host = on the host CPU (policies that run a rank's graph on "
      "the host: cpu, hdn, hdn2s, copy, overlap); skip = no op (what depends on them waits "
      "for what they wait for); auto = host where the policy can, else skip"),
    PAR(stream_window, PAR_INT, "256", "0", "16777216", NULL,
      "ops of a rank read ahead that wait for a dependency, when the trace streams (its "
      "collectives written out op by op as the run's library runs them); the ops among which "
      "the GPU-driven policies pick a rank's next (read whole too); 0: read every file whole "
      "first"),
    PAR(read, PAR_ENUM, "stream", NULL, NULL, "stream|whole",
      "stream: as stream_window says; whole: read the whole trace first all the same (a rank "
      "still ordered within stream_window): to compare a streamed run with the whole one"),
    PAR(whole_limit, PAR_INT, "33554432", "1", "33554432", NULL,
      "the most ops a trace may have to be read whole, 2^25 (a streamed run that stops falls "
      "back to it); a longer one streams only, what the whole trace would say of it said from "
      "the first pass"),
    PAR(deps, PAR_ENUM, "both", NULL, NULL, "both|data",
      "what a node waits for: both = the nodes of its ctrl_deps and data_deps (ASTRA-sim's "
      "feeder); data = its data_deps alone (Chakra's et_feeder: for traces whose ctrl_deps "
      "name a node's caller, as Chakra's PyTorch converter of 2024 wrote them)"),
    PAR(comm_groups, PAR_STRING, "", NULL, NULL, NULL,
      "ASTRA-sim's communicator-group file (JSON {\"1\": [0, 1], ...}: pg_name to ranks), "
      "for traces whose process groups no process_group:init node defines; relative to "
      "the scenario"),
};
#undef PAR_CONFIG

const struct par_group chakra_params = {
    .name = "chakra",
    .doc = "a Chakra execution trace (MLCommons; ASTRA-sim's input): PREFIX.<rank>.et",
    .decls = chakra_decls,
    .n_decls = PAR_COUNT(chakra_decls),
    .config_size = sizeof(struct chakra_config),
};

/* Collective tags: bit 31, the group's number (12 bits) and the call's
 * place among the group's calls on a rank (19 bits, even: WL_COLL_TAGS). */
#define CHAKRA_COLL_TAG 0x80000000u
#define CHAKRA_MAX_GROUPS 4096
#define CHAKRA_CALL_BITS 19
/* A message's tag must leave bit 31 to collectives and rendezvous. */
#define CHAKRA_MAX_TAG 0x7fffffffu

/* Chakra's NodeType runs INVALID_NODE (0) .. COMM_COLL_NODE (7). */
#define CHAKRA_NODE_TYPES 8
static const char *const comm_names[] = {"ALL_REDUCE", "REDUCE",         "ALL_GATHER",
                                         "GATHER",     "SCATTER",        "BROADCAST",
                                         "ALL_TO_ALL", "REDUCE_SCATTER", "REDUCE_SCATTER_BLOCK",
                                         "BARRIER"};
/* Chakra's CollectiveCommType to wl_coll_kind (-1: not modelled). */
static const int comm_kinds[] = {WL_ALLREDUCE, WL_REDUCE, WL_ALLGATHER, -1, -1, WL_BCAST,
                                 WL_ALLTOALL, WL_REDUCE_SCATTER, WL_REDUCE_SCATTER, WL_BARRIER};
/* ... and back, by wl_coll_kind. */
static const int coll_comm[WL_COLL_COUNT] = {
    [WL_ALLREDUCE] = 0, [WL_REDUCE_SCATTER] = 7, [WL_ALLGATHER] = 2, [WL_BCAST] = 5,
    [WL_REDUCE] = 1,    [WL_ALLTOALL] = 6,       [WL_BARRIER] = 9};

/* ---- allocations within a budget ----
 * protobuf-c allocates through this: a message of L bytes may take at
 * most 64 L + 64 KiB (a packed list of 8-byte values is at most 8 L; a
 * submessage's struct about 100 bytes for 2 on the wire), so that a
 * hostile length or count cannot exhaust memory. */
struct budget {
  size_t left;
};

#define HDR 16 /* keeps the alignment malloc gives */

static void *budget_alloc(void *data, size_t size) {
  struct budget *b = data;
  if (size > b->left || b->left - size < HDR) return NULL;
  size_t *p = malloc(size + HDR);
  if (!p) return NULL;
  p[0] = size;
  b->left -= size + HDR;
  return (char *)p + HDR;
}

static void budget_free(void *data, void *ptr) {
  if (!ptr) return;
  struct budget *b = data;
  size_t *p = (size_t *)(void *)((char *)ptr - HDR);
  b->left += p[0] + HDR;
  free(p);
}

/* ---- the cursor ---- */

struct chakra_cursor {
  FILE *f;
  char *path;
  uint32_t rank, n_ranks;
  uint64_t size, pos;      /* the file's bytes, the next message's offset */
  struct chakra_opts o;
  GHashTable *groups;      /* borrowed: workload.comm_groups */
  struct wl_program *table; /* borrowed: the kernels its compute ops name */
  GHashTable *pgs;         /* pg_name -> GArray of uint32_t: this file's definitions */
  ChakraEt__Node *node;    /* the node last returned */
  uint8_t *buf;
  size_t cap;
  GArray *deps, *starts;   /* uint64_t */
  struct budget budget;
  ProtobufCAllocator alloc;
  bool have_prev;          /* for messages: the last node's id */
  uint64_t prev_id;
};

uint64_t chakra_offset(const struct chakra_cursor *c) { return c->pos; }

/* "PATH: rank R: " (or "... node ID: ") and the message. */
static char *cur_error(const struct chakra_cursor *c, const uint64_t *id, const char *fmt, ...)
    G_GNUC_PRINTF(3, 4);
static char *cur_error(const struct chakra_cursor *c, const uint64_t *id, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  char *msg = g_strdup_vprintf(fmt, ap);
  va_end(ap);
  char *where = id ? g_strdup_printf("rank %u node %" G_GUINT64_FORMAT, c->rank, *id)
                   : g_strdup_printf("rank %u", c->rank);
  char *out = g_strdup_printf("%s: %s: %s", c->path, where, msg);
  g_free(where);
  g_free(msg);
  return out;
}

/* The next message's bytes into c->buf (*LEN of them): 1; 0 at the end of
 * the file; -1 and *ERR when the length or the message is cut short. */
static int read_message(struct chakra_cursor *c, size_t *len, char **err) {
  uint64_t v = 0;
  int shift = 0, ch;
  uint64_t start = c->pos;
  char after[64] = "";
  if (c->have_prev)
    g_snprintf(after, sizeof after, " after node %" G_GUINT64_FORMAT, c->prev_id);
  for (;;) {
    ch = getc(c->f);
    if (ch == EOF) {
      if (c->pos == start && !ferror(c->f)) return 0; /* between messages: the end */
      *err = cur_error(c, NULL, "expected a message's length%s (a varint at byte %" G_GUINT64_FORMAT
                       "), got %s", after, start, ferror(c->f) ? "a read error" : "the end of the file");
      return -1;
    }
    c->pos++;
    if (shift >= 64 || (shift == 63 && (ch & 0x7e))) {
      *err = cur_error(c, NULL, "expected a message's length%s (a varint at byte %" G_GUINT64_FORMAT
                       "), got one past 64 bits", after, start);
      return -1;
    }
    v |= (uint64_t)(ch & 0x7f) << shift;
    shift += 7;
    if (!(ch & 0x80)) break;
  }
  if (v > c->size - c->pos) {
    *err = cur_error(c, NULL, "expected a message of %" G_GUINT64_FORMAT " bytes at byte %"
                     G_GUINT64_FORMAT "%s, got %" G_GUINT64_FORMAT " (the file is truncated)",
                     v, c->pos, after, c->size - c->pos);
    return -1;
  }
  if (v > c->cap) {
    c->buf = g_realloc(c->buf, (size_t)v);
    c->cap = (size_t)v;
  }
  if (v && fread(c->buf, 1, (size_t)v, c->f) != v) {
    *err = cur_error(c, NULL, "expected a message of %" G_GUINT64_FORMAT " bytes at byte %"
                     G_GUINT64_FORMAT "%s, got a read error", v, c->pos, after);
    return -1;
  }
  c->pos += v;
  *len = (size_t)v;
  return 1;
}

static void budget_set(struct chakra_cursor *c, size_t len) {
  c->budget.left = len * 64 + 65536;
}

/* Attribute NAME of node N (the first), or NULL. */
static const ChakraEt__AttributeProto *attr_of(const ChakraEt__Node *n, const char *name) {
  for (size_t i = 0; i < n->n_attr; i++)
    if (n->attr[i]->name && !strcmp(n->attr[i]->name, name)) return n->attr[i];
  return NULL;
}

/* Attribute A as an integer (any integer type, or a bool): false when it
 * is another type or does not fit an int64. */
static bool attr_int(const ChakraEt__AttributeProto *a, int64_t *v) {
  switch (a->value_case) {
  case CHAKRA_ET__ATTRIBUTE_PROTO__VALUE_INT32_VAL: *v = a->int32_val; return true;
  case CHAKRA_ET__ATTRIBUTE_PROTO__VALUE_INT64_VAL: *v = a->int64_val; return true;
  case CHAKRA_ET__ATTRIBUTE_PROTO__VALUE_UINT32_VAL: *v = a->uint32_val; return true;
  case CHAKRA_ET__ATTRIBUTE_PROTO__VALUE_SINT32_VAL: *v = a->sint32_val; return true;
  case CHAKRA_ET__ATTRIBUTE_PROTO__VALUE_SINT64_VAL: *v = a->sint64_val; return true;
  case CHAKRA_ET__ATTRIBUTE_PROTO__VALUE_FIXED32_VAL: *v = a->fixed32_val; return true;
  case CHAKRA_ET__ATTRIBUTE_PROTO__VALUE_SFIXED32_VAL: *v = a->sfixed32_val; return true;
  case CHAKRA_ET__ATTRIBUTE_PROTO__VALUE_SFIXED64_VAL: *v = a->sfixed64_val; return true;
  case CHAKRA_ET__ATTRIBUTE_PROTO__VALUE_BOOL_VAL: *v = a->bool_val ? 1 : 0; return true;
  case CHAKRA_ET__ATTRIBUTE_PROTO__VALUE_UINT64_VAL:
    if (a->uint64_val > INT64_MAX) return false;
    *v = (int64_t)a->uint64_val;
    return true;
  case CHAKRA_ET__ATTRIBUTE_PROTO__VALUE_FIXED64_VAL:
    if (a->fixed64_val > INT64_MAX) return false;
    *v = (int64_t)a->fixed64_val;
    return true;
  default: return false;
  }
}

/* Integer attribute NAME of node N within [LO, HI] into *V: 1; 0 when
 * absent (V untouched); -1 and *ERR when it is not such an integer. */
static int int_attr(const struct chakra_cursor *c, const ChakraEt__Node *n, const char *name,
                    int64_t lo, int64_t hi, int64_t *v, char **err) {
  const ChakraEt__AttributeProto *a = attr_of(n, name);
  if (!a) return 0;
  int64_t x;
  if (!attr_int(a, &x)) {
    *err = cur_error(c, &n->id, "expected %s as an integer attribute, got %s", name,
                     a->value_case == CHAKRA_ET__ATTRIBUTE_PROTO__VALUE_STRING_VAL ? "a string"
                     : a->value_case == CHAKRA_ET__ATTRIBUTE_PROTO__VALUE__NOT_SET ? "no value"
                                                                                    : "another type");
    return -1;
  }
  if (x < lo || x > hi) {
    *err = cur_error(c, &n->id, "expected %s in [%" G_GINT64_FORMAT ", %" G_GINT64_FORMAT "], got %"
                     G_GINT64_FORMAT, name, lo, hi, x);
    return -1;
  }
  *v = x;
  return 1;
}

/* Bool attribute NAME (a bool or an integer; absent: false). */
static int bool_attr(const struct chakra_cursor *c, const ChakraEt__Node *n, const char *name,
                     bool *v, char **err) {
  int64_t x = 0;
  int got = int_attr(c, n, name, 0, 1, &x, err);
  *v = x != 0;
  return got;
}

/* String attribute NAME, or NULL when absent; -1 (through *BAD) when it
 * is not a string. */
static const char *str_attr(const struct chakra_cursor *c, const ChakraEt__Node *n,
                            const char *name, bool *bad, char **err) {
  const ChakraEt__AttributeProto *a = attr_of(n, name);
  if (!a) return NULL;
  if (a->value_case != CHAKRA_ET__ATTRIBUTE_PROTO__VALUE_STRING_VAL) {
    *err = cur_error(c, &n->id, "expected %s as a string attribute, got another type", name);
    *bad = true;
    return NULL;
  }
  return a->string_val;
}

/* The list attribute NAME of unsigned integers into OUT (appended). */
static bool list_attr(const struct chakra_cursor *c, const ChakraEt__Node *n, const char *name,
                      GArray *out, char **err) {
  const ChakraEt__AttributeProto *a = attr_of(n, name);
  if (!a) return true;
  if (a->value_case == CHAKRA_ET__ATTRIBUTE_PROTO__VALUE_UINT64_LIST && a->uint64_list) {
    g_array_append_vals(out, a->uint64_list->values, (guint)a->uint64_list->n_values);
    return true;
  }
  if (a->value_case == CHAKRA_ET__ATTRIBUTE_PROTO__VALUE_INT64_LIST && a->int64_list) {
    for (size_t i = 0; i < a->int64_list->n_values; i++) {
      uint64_t v = (uint64_t)a->int64_list->values[i];
      g_array_append_val(out, v);
    }
    return true;
  }
  *err = cur_error(c, &n->id, "expected %s as a list of node ids, got another type", name);
  return false;
}

static int cmp_u32(const void *a, const void *b) {
  uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
  return (x > y) - (x < y);
}

/* The ranks of sc_node list L (JSON's list of integers) into OUT, sorted
 * (empty: every rank, as PyTorch writes the default group). False and
 * *WHY when L is not such a list of distinct ranks below N_RANKS. */
static bool ranks_of(const struct sc_node *l, uint32_t n_ranks, GArray *out, char **why) {
  if (!l || l->kind != SC_SEQ) {
    *why = g_strdup("a list of ranks");
    return false;
  }
  for (size_t i = 0; i < l->n_items; i++) {
    const struct sc_node *it = l->items[i];
    char *end = NULL;
    errno = 0;
    unsigned long long v = it->kind == SC_SCALAR ? strtoull(it->scalar, &end, 10) : 0;
    if (it->kind != SC_SCALAR || !*it->scalar || *end || errno || it->scalar[0] == '-' ||
        v >= n_ranks) {
      *why = g_strdup_printf("ranks below %u, got %s", n_ranks,
                             it->kind == SC_SCALAR ? it->scalar : "a list or mapping");
      return false;
    }
    uint32_t r = (uint32_t)v;
    g_array_append_val(out, r);
  }
  if (out->len) g_array_sort(out, cmp_u32);
  for (guint i = 1; i < out->len; i++)
    if (g_array_index(out, uint32_t, i) == g_array_index(out, uint32_t, i - 1)) {
      *why = g_strdup_printf("distinct ranks, got %u twice", g_array_index(out, uint32_t, i));
      return false;
    }
  return true;
}

static void array_free(gpointer p) { g_array_free(p, TRUE); }

/* A metadata node's process groups (PyTorch's "## process_group:init ##"
 * node, as Chakra's converter writes it: inputs.values = "['[{\"pg_name\":
 * \"0\", ..., \"ranks\": [0, 1], ...}]']"; ASTRA-sim strips the two
 * characters at each end and reads the JSON, from any metadata node) into
 * the cursor's groups. A node named process_group:init must hold them;
 * another metadata node whose values are not such a list defines none. */
static bool process_groups(struct chakra_cursor *c, const ChakraEt__Node *n, char **err) {
  const char *v = n->inputs ? n->inputs->values : NULL;
  size_t len = v ? strlen(v) : 0;
  bool named = n->name && strstr(n->name, "process_group:init");
  if (len < 4) return true; /* nothing defined */
  char *json = g_strndup(v + 2, len - 4), *why = NULL;
  struct sc_node *root = sc_load_string(json, "process_group:init", &why);
  bool ok = root && root->kind == SC_SEQ;
  GHashTable *found = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, array_free);
  for (size_t i = 0; ok && i < root->n_items; i++) {
    const struct sc_node *pg = root->items[i], *name = sc_map_get(pg, "pg_name");
    ok = name && name->kind == SC_SCALAR;
    if (!ok) break;
    GArray *ranks = g_array_new(FALSE, FALSE, sizeof(uint32_t));
    g_free(why);
    why = NULL;
    if (!ranks_of(sc_map_get(pg, "ranks"), c->n_ranks, ranks, &why)) {
      char *w = g_strdup_printf("process group %s: %s", name->scalar, why);
      g_free(why);
      why = w;
      ok = false;
      g_array_free(ranks, TRUE);
      break;
    }
    g_hash_table_replace(found, g_strdup(name->scalar), ranks);
  }
  if (ok) { /* every group of the node, or none */
    GHashTableIter it;
    gpointer k, val;
    g_hash_table_iter_init(&it, found);
    while (g_hash_table_iter_next(&it, &k, &val)) {
      g_hash_table_iter_steal(&it);
      g_hash_table_replace(c->pgs, k, val);
    }
  } else if (named) {
    *err = cur_error(c, &n->id, "expected inputs.values to hold PyTorch's process groups "
                     "(['[{\"pg_name\": ..., \"ranks\": [...]}, ...]']), got %s",
                     why ? why : "something else");
  }
  g_hash_table_destroy(found);
  g_free(why);
  g_free(json);
  if (root) sc_node_free(root);
  return ok || !named;
}

struct chakra_cursor *chakra_open(const char *path, uint32_t rank, uint32_t n_ranks,
                                  const struct chakra_opts *o, GHashTable *groups,
                                  struct wl_program *table, char **err) {
  struct chakra_cursor *c = g_new0(struct chakra_cursor, 1);
  c->path = g_strdup(path);
  c->rank = rank, c->n_ranks = n_ranks, c->o = *o, c->groups = groups, c->table = table;
  c->pgs = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, array_free);
  c->deps = g_array_new(FALSE, FALSE, sizeof(uint64_t));
  c->starts = g_array_new(FALSE, FALSE, sizeof(uint64_t));
  c->alloc = (ProtobufCAllocator){.alloc = budget_alloc, .free = budget_free,
                                  .allocator_data = &c->budget};
  struct stat st;
  c->f = fopen(path, "rb");
  if (!c->f || fstat(fileno(c->f), &st) != 0) {
    *err = cur_error(c, NULL, "expected a readable Chakra trace file, got %s", g_strerror(errno));
    chakra_close(c);
    return NULL;
  }
  c->size = (uint64_t)st.st_size;
  size_t len = 0;
  int got = read_message(c, &len, err);
  if (got == 0)
    *err = cur_error(c, NULL, "expected a GlobalMetadata message first, got an empty file");
  if (got <= 0) {
    chakra_close(c);
    return NULL;
  }
  budget_set(c, len);
  ChakraEt__GlobalMetadata *m = chakra_et__global_metadata__unpack(&c->alloc, len, c->buf);
  bool old = !m;
  for (const char *s = m ? m->version : NULL; s && *s && !old; s++)
    old = (unsigned char)*s < 0x20; /* proto2's attributes in field 1, read as a string */
  if (old)
    *err = cur_error(c, NULL, "expected a GlobalMetadata of Chakra's proto3 schema (v0.0.4 and "
                     "later, 2023-10 on) first, got %s: traces of its earlier proto2 schema start "
                     "with a Node or with attributes in field 1 and number their fields and "
                     "collectives otherwise; convert them again with Chakra v0.0.4 or later",
                     m ? "one of its proto2 schema" : "a message that is not one");
  if (m) chakra_et__global_metadata__free_unpacked(m, &c->alloc);
  if (old) {
    chakra_close(c);
    return NULL;
  }
  return c;
}

void chakra_close(struct chakra_cursor *c) {
  if (!c) return;
  if (c->node) chakra_et__node__free_unpacked(c->node, &c->alloc);
  if (c->f) fclose(c->f);
  g_hash_table_destroy(c->pgs);
  g_array_free(c->deps, TRUE);
  g_array_free(c->starts, TRUE);
  g_free(c->buf);
  g_free(c->path);
  g_free(c);
}

/* trigsim's own attributes of a compute's kernel (struct wl_kernel,
 * program.h), each a field written when not 0 and read back as it was,
 * within [0, MAX] (0: an int64 at most INT64_MAX / 4). */
struct kattr {
  const char *name;
  size_t off, size;
  int64_t max;
};
#define KATTR(name, field, max) {name, offsetof(struct wl_kernel, field), sizeof(((struct wl_kernel *)0)->field), max}
static const struct kattr kattrs[] = {
    KATTR("trigsim_flops_per_wg", flops_per_wg, 0),
    KATTR("trigsim_bytes_per_wg", bytes_per_wg, 0),
    KATTR("trigsim_kclass", kclass, KC_COUNT - 1),
    KATTR("trigsim_spmv", spmv, WL_SPMV_MERGE),
    KATTR("trigsim_x_gets", x_gets, 1),
    KATTR("trigsim_working_set", ws_bytes, 0),
    KATTR("trigsim_reuse", reuse_per_wg, 0),
    KATTR("trigsim_gather", gather_bytes, 0),
    KATTR("trigsim_rows_per_wg", rows_per_wg, 0),
    KATTR("trigsim_nnz_per_wg", nnz_per_wg, 0),
    KATTR("trigsim_peer_per_wg", peer_per_wg, 0),
    KATTR("trigsim_peer_sectors_per_wg", peer_sectors_per_wg, 0),
    KATTR("trigsim_bal_flops_per_wg", bal_flops_per_wg, 0),
    KATTR("trigsim_bal_bytes_per_wg", bal_bytes_per_wg, 0),
    KATTR("trigsim_bal_reuse_per_wg", bal_reuse_per_wg, 0),
    KATTR("trigsim_merge_extra_per_wg", merge_extra_per_wg, 0),
    KATTR("trigsim_lib", lib, 1),
    KATTR("trigsim_lib_flops_per_wg", lib_flops_per_wg, 0),
    KATTR("trigsim_lib_bytes_per_wg", lib_bytes_per_wg, 0),
    KATTR("trigsim_block", block, UINT32_MAX),
    KATTR("trigsim_segments", segments, 0),
    KATTR("trigsim_segment_len", segment_len, 0),
};
#undef KATTR

/* Field A of kernel K, and K's field A set to V. */
static int64_t kattr_get(const struct wl_kernel *k, const struct kattr *a) {
  const char *p = (const char *)k + a->off;
  if (a->size == 1) return *(const uint8_t *)p;
  if (a->size == 4) return *(const uint32_t *)(const void *)p;
  return *(const int64_t *)(const void *)p;
}

static void kattr_set(struct wl_kernel *k, const struct kattr *a, int64_t v) {
  char *p = (char *)k + a->off;
  if (a->size == 1) *(uint8_t *)p = (uint8_t)v;
  else if (a->size == 4) *(uint32_t *)(void *)p = (uint32_t)v;
  else *(int64_t *)(void *)p = v;
}

/* The compute op of node N (a COMP_NODE or memory node) into *O. */
static bool compute_op(struct chakra_cursor *c, const ChakraEt__Node *n, bool cpu,
                       struct wl_op *o, char **err) {
  const int64_t big = INT64_MAX / 4;
  int64_t wgs = c->o.wgs, flops = 0, bytes = 0;
  int has_ops = int_attr(c, n, "num_ops", 0, big, &flops, err);
  int has_bytes = has_ops < 0 ? -1 : int_attr(c, n, "tensor_size", 0, big, &bytes, err);
  int own = has_bytes < 0 ? -1 : int_attr(c, n, "trigsim_wgs", 1, UINT32_MAX, &wgs, err);
  if (own < 0) return false;
  if (n->duration_micros > (uint64_t)(big / SIM_US)) {
    *err = cur_error(c, &n->id, "expected duration_micros at most %" G_GINT64_FORMAT ", got %"
                     G_GUINT64_FORMAT, big / SIM_US, n->duration_micros);
    return false;
  }
  int64_t dur = (int64_t)n->duration_micros * SIM_US;
  *o = (struct wl_op){.kind = WL_COMPUTE, .n_wgs = 1, .on = cpu ? WL_ON_CPU : WL_ON_ANY};
  uint8_t mode = c->o.compute;
  if (mode == CHAKRA_COMPUTE_AUTO && own) { /* trigsim's own: the op exactly */
    struct wl_kernel k = {0};
    int64_t t = 0;
    if (int_attr(c, n, "trigsim_time_ps", 0, big, &t, err) < 0) return false;
    for (size_t a = 0; a < G_N_ELEMENTS(kattrs); a++) {
      int64_t v = 0;
      if (int_attr(c, n, kattrs[a].name, 0, kattrs[a].max ? kattrs[a].max : big, &v, err) < 0)
        return false;
      kattr_set(&k, &kattrs[a], v);
    }
    o->n_wgs = (uint32_t)wgs;
    o->time_ps = t;
    o->kernel = wl_kernel_add(c->table, &k);
    return true;
  }
  bool work = mode == CHAKRA_COMPUTE_WORK ? has_ops || has_bytes
              : mode == CHAKRA_COMPUTE_AUTO ? dur == 0 && (has_ops || has_bytes)
                                            : false;
  if (!work) { /* each WG lasts the duration (0: a kernel of no work) */
    o->time_ps = dur;
    o->n_wgs = cpu ? 1 : MAX(c->o.dur_wgs, 1);
    return true;
  }
  o->n_wgs = (uint32_t)wgs;
  o->kernel = wl_kernel_add(c->table, &(struct wl_kernel){.flops_per_wg = (flops + wgs - 1) / wgs,
                                                          .bytes_per_wg = (bytes + wgs - 1) / wgs});
  return true;
}

/* The peer attribute KEY (comm_dst of a send, comm_src of a receive) and
 * the own one OWN, which must name this rank when present. */
static bool peer_attrs(struct chakra_cursor *c, const ChakraEt__Node *n, const char *key,
                       const char *own, uint32_t *peer, char **err) {
  int64_t v = 0, me = c->rank;
  int got = int_attr(c, n, key, 0, (int64_t)c->n_ranks - 1, &v, err);
  if (got == 0)
    *err = cur_error(c, &n->id, "expected a %s attribute (the peer rank), got none", key);
  if (got <= 0) return false;
  if (int_attr(c, n, own, 0, INT64_MAX, &me, err) < 0) return false;
  if (me != c->rank) {
    *err = cur_error(c, &n->id, "expected %s %u (this file's rank), got %" G_GINT64_FORMAT, own,
                     c->rank, me);
    return false;
  }
  if (v == c->rank) {
    *err = cur_error(c, &n->id, "expected %s to name another rank than %u, got itself", key, c->rank);
    return false;
  }
  *peer = (uint32_t)v;
  return true;
}

static bool message_op(struct chakra_cursor *c, const ChakraEt__Node *n, bool send,
                       struct wl_op *o, char **err) {
  int64_t size = 0, tag = 0;
  uint32_t peer;
  if (!peer_attrs(c, n, send ? "comm_dst" : "comm_src", send ? "comm_src" : "comm_dst", &peer, err))
    return false;
  int got = int_attr(c, n, "comm_size", 0, INT64_MAX / 4, &size, err);
  if (got == 0) *err = cur_error(c, &n->id, "expected a comm_size attribute (bytes), got none");
  if (got <= 0) return false;
  if (int_attr(c, n, "comm_tag", 0, CHAKRA_MAX_TAG, &tag, err) < 0) return false;
  bool one_sided = false;
  if (bool_attr(c, n, "trigsim_one_sided", &one_sided, err) < 0) return false;
  *o = (struct wl_op){.kind = send ? WL_SEND : WL_RECV, .peer = peer, .bytes = size,
                      .tag = (uint32_t)tag, .parts = 1, .stores = send ? 1 : 0,
                      .one_sided = one_sided};
  return true;
}

/* The ranks of process group NAME: this file's definition, else
 * workload.comm_groups', else every rank for "" and "0" (ASTRA-sim's
 * default group); false and *ERR when none defines it. */
static bool pg_ranks(struct chakra_cursor *c, const ChakraEt__Node *n, const char *name,
                     const uint32_t **ranks, uint32_t *count, char **err) {
  GArray *a = *name ? g_hash_table_lookup(c->pgs, name) : NULL;
  if (!a && *name && c->groups) a = g_hash_table_lookup(c->groups, name);
  *ranks = NULL, *count = c->n_ranks;
  if (!a && (!*name || !strcmp(name, "0"))) return true;
  if (!a) {
    *err = cur_error(c, &n->id, "expected pg_name %s defined by a process_group:init metadata "
                     "node before it or by workload.comm_groups, got no definition", name);
    return false;
  }
  if (!a->len || a->len == c->n_ranks) return true; /* every rank */
  uint32_t last = g_array_index(a, uint32_t, a->len - 1); /* they ascend */
  if (last >= c->n_ranks) {
    *err = cur_error(c, &n->id, "expected process group %s to hold ranks below %u (the trace's), "
                     "got rank %u", name, c->n_ranks, last);
    return false;
  }
  *ranks = (const uint32_t *)(void *)a->data, *count = a->len;
  if (*ranks && !bsearch(&c->rank, *ranks, a->len, sizeof c->rank, cmp_u32)) {
    *err = cur_error(c, &n->id, "expected process group %s to hold this rank (%u), got ranks "
                     "%u..%u without it", name, c->rank, (*ranks)[0], (*ranks)[a->len - 1]);
    return false;
  }
  return true;
}

static bool coll_op(struct chakra_cursor *c, const ChakraEt__Node *n, struct chakra_node *out,
                    char **err) {
  int64_t type = 0, size = 0, root = -1;
  int got = int_attr(c, n, "comm_type", 0, INT64_MAX, &type, err);
  if (got == 0) *err = cur_error(c, &n->id, "expected a comm_type attribute, got none");
  if (got <= 0) return false;
  if (type >= (int64_t)G_N_ELEMENTS(comm_kinds) || comm_kinds[type] < 0) {
    *err = cur_error(c, &n->id, "expected a comm_type trigsim models (ALL_REDUCE, REDUCE, "
                     "ALL_GATHER, BROADCAST, ALL_TO_ALL, REDUCE_SCATTER, REDUCE_SCATTER_BLOCK, "
                     "BARRIER), got %s", type < (int64_t)G_N_ELEMENTS(comm_names) ? comm_names[type]
                                                                             : "an unknown one");
    if (type >= (int64_t)G_N_ELEMENTS(comm_names)) {
      g_free(*err);
      *err = cur_error(c, &n->id, "expected a comm_type of Chakra's CollectiveCommType (0-9), "
                       "got %" G_GINT64_FORMAT, type);
    }
    return false;
  }
  enum wl_coll_kind kind = (enum wl_coll_kind)comm_kinds[type];
  got = int_attr(c, n, "comm_size", 0, INT64_MAX / 4, &size, err);
  if (got == 0 && kind != WL_BARRIER)
    *err = cur_error(c, &n->id, "expected a comm_size attribute (bytes), got none");
  if (got < 0 || (got == 0 && kind != WL_BARRIER)) return false;
  bool bad = false;
  const char *pg = str_attr(c, n, "pg_name", &bad, err);
  if (bad) return false;
  out->pg_name = pg ? pg : "";
  if (!pg_ranks(c, n, out->pg_name, &out->pg, &out->pg_n, err)) return false;
  if (int_attr(c, n, "comm_src", 0, (int64_t)c->n_ranks - 1, &root, err) < 0) return false;
  if (root < 0) root = out->pg ? out->pg[0] : 0; /* Chakra names no root: the group's first */
  if (out->pg && !bsearch(&(uint32_t){(uint32_t)root}, out->pg, out->pg_n, sizeof(uint32_t), cmp_u32)) {
    *err = cur_error(c, &n->id, "expected comm_src (the root) to be a rank of process group %s, "
                     "got %" G_GINT64_FORMAT, out->pg_name, root);
    return false;
  }
  /* ALL_TO_ALL's comm_size is what one rank sends in all (PyTorch's input
   * tensor); trigsim's alltoall counts it per peer. */
  if (kind == WL_ALLTOALL) size = (size + out->pg_n - 1) / out->pg_n;
  int64_t elem = 4, fpe = 1, wgs = c->o.wgs, seg = 0;
  if (int_attr(c, n, "trigsim_elem", 1, 1 << 20, &elem, err) < 0 ||
      int_attr(c, n, "trigsim_flops_per_elem", 0, 1 << 20, &fpe, err) < 0 ||
      int_attr(c, n, "trigsim_wgs", 0, 1 << 24, &wgs, err) < 0 ||
      int_attr(c, n, "trigsim_segment", 0, INT64_MAX / 4, &seg, err) < 0)
    return false;
  enum wl_coll_algo algo = WL_ALG_AUTO;
  const char *an = str_attr(c, n, "trigsim_algorithm", &bad, err);
  if (bad) return false;
  if (an && (!wl_coll_algo_parse(an, &algo) || !wl_coll_has_algo(kind, algo))) {
    char *want = wl_coll_algo_list(kind);
    *err = cur_error(c, &n->id, "expected trigsim_algorithm of %s (%s), got %s", wl_coll_names[kind],
                     want, an);
    g_free(want);
    return false;
  }
  if (wl_coll_max_ops(&(struct wl_coll){.kind = (uint8_t)kind, .algo = (uint8_t)algo,
                                          .bytes = size, .elem = elem, .segment_bytes = seg},
                      out->pg_n) > WL_MAX_OPS) {
    *err = cur_error(c, &n->id, "expected a collective that expands to at most 2^25 ops on a "
                     "rank, got more (trigsim_segment too small)");
    return false;
  }
  out->call = (struct wl_call){.kind = (uint8_t)kind, .algo = (uint8_t)algo, .elem_bytes = elem,
                               .flops_per_elem = fpe, .segment_bytes = seg};
  out->op = (struct wl_op){.kind = WL_COLL, .bytes = kind == WL_BARRIER ? 0 : size,
                           .n_wgs = (uint32_t)wgs, .peer = (uint32_t)root, .parts = 1, .stores = 1};
  return true;
}

int chakra_next(struct chakra_cursor *c, struct chakra_node *out, char **err) {
  if (c->node) {
    chakra_et__node__free_unpacked(c->node, &c->alloc);
    c->node = NULL;
  }
  size_t len = 0;
  int got = read_message(c, &len, err);
  if (got <= 0) return got;
  budget_set(c, len);
  ChakraEt__Node *n = c->node = chakra_et__node__unpack(&c->alloc, len, c->buf);
  if (!n) {
    char after[64] = "";
    if (c->have_prev) g_snprintf(after, sizeof after, " after node %" G_GUINT64_FORMAT, c->prev_id);
    *err = cur_error(c, NULL, "expected a Node message of %zu bytes at byte %" G_GUINT64_FORMAT
                     "%s, got one that does not decode (corrupt, or past the memory a message of "
                     "its size may take)", len, c->pos - len, after);
    return -1;
  }
  c->have_prev = true, c->prev_id = n->id;
  *out = (struct chakra_node){.id = n->id, .name = n->name ? n->name : "",
                              .type = (uint8_t)MIN((unsigned)n->type, 255u)};
  if ((unsigned)n->type >= CHAKRA_NODE_TYPES) {
    *err = cur_error(c, &n->id, "expected a node type of Chakra's NodeType (INVALID_NODE .. "
                     "COMM_COLL_NODE, 0-7), got %d", (int)n->type);
    return -1;
  }
  g_array_set_size(c->deps, 0);
  g_array_set_size(c->starts, 0);
  if (!c->o.data_only) g_array_append_vals(c->deps, n->ctrl_deps, (guint)n->n_ctrl_deps);
  g_array_append_vals(c->deps, n->data_deps, (guint)n->n_data_deps);
  if (!list_attr(c, n, "trigsim_irequires", c->starts, err)) return -1;
  out->deps = (const uint64_t *)(void *)c->deps->data, out->n_deps = c->deps->len;
  out->start_deps = (const uint64_t *)(void *)c->starts->data, out->n_start = c->starts->len;
  bool cpu = false, ok = true, quiet = false;
  switch (n->type) {
  case CHAKRA_ET__NODE_TYPE__INVALID_NODE: break;
  case CHAKRA_ET__NODE_TYPE__METADATA_NODE:
    ok = process_groups(c, n, err);
    if (ok && (ok = bool_attr(c, n, "trigsim_quiet", &quiet, err) >= 0) && quiet) {
      out->has_op = true;
      out->op = (struct wl_op){.kind = WL_QUIET};
    }
    break;
  case CHAKRA_ET__NODE_TYPE__MEM_LOAD_NODE:
  case CHAKRA_ET__NODE_TYPE__MEM_STORE_NODE:
  case CHAKRA_ET__NODE_TYPE__COMP_NODE:
    ok = bool_attr(c, n, "is_cpu_op", &cpu, err) >= 0;
    if (ok && cpu && c->o.cpu_skip) break;
    ok = ok && compute_op(c, n, cpu, &out->op, err);
    out->has_op = ok;
    break;
  case CHAKRA_ET__NODE_TYPE__COMM_SEND_NODE:
  case CHAKRA_ET__NODE_TYPE__COMM_RECV_NODE:
  case CHAKRA_ET__NODE_TYPE__COMM_COLL_NODE:
    /* A communication node on the CPU (is_cpu_op true) is the host's call
     * (c10d::allreduce_ and the like, as Chakra's PyTorch converter wrote
     * them in 2024, beside the GPU's ncclKernel node that carries the
     * collective): a CPU op of its recorded time, as ASTRA-sim's feeder
     * took any node with is_cpu_op (Workload::issue, issue_comp). */
    if (!(ok = bool_attr(c, n, "is_cpu_op", &cpu, err) >= 0)) break;
    if (cpu) {
      if (c->o.cpu_skip) break;
      ok = out->has_op = compute_op(c, n, true, &out->op, err);
    } else if (n->type == CHAKRA_ET__NODE_TYPE__COMM_COLL_NODE) {
      ok = out->has_op = coll_op(c, n, out, err);
    } else {
      ok = out->has_op = message_op(c, n, n->type == CHAKRA_ET__NODE_TYPE__COMM_SEND_NODE,
                                    &out->op, err);
    }
    break;
  default: g_assert_not_reached();
  }
  return ok ? 1 : -1;
}

/* ---- whole programs ---- */

/* A node as read, its lists in the rank's arrays. */
struct rnode {
  struct wl_op op;
  struct wl_call call;            /* a collective's, its group not yet set */
  uint64_t id;
  bool has_op;
  uint32_t dep_first, n_deps;     /* rread.deps: node indices once resolved */
  uint32_t start_first, n_start;  /* rread.starts */
  uint32_t pg_first, pg_n;        /* rread.pgs; pg_n 0: every rank */
  const char *pg_name;            /* interned */
};

/* One rank's nodes. */
struct rread {
  GArray *nodes;   /* struct rnode */
  GArray *deps;    /* uint64_t ids, then indices (uint64_t) once resolved */
  GArray *starts;  /* likewise */
  GArray *pgs;     /* uint32_t */
  GArray *op_id;   /* uint64_t: the node id of each op written */
};

static void rread_clear(struct rread *r) {
  if (r->nodes) g_array_free(r->nodes, TRUE);
  if (r->deps) g_array_free(r->deps, TRUE);
  if (r->starts) g_array_free(r->starts, TRUE);
  if (r->pgs) g_array_free(r->pgs, TRUE);
  if (r->op_id) g_array_free(r->op_id, TRUE);
  *r = (struct rread){0};
}

/* A binary min-heap of node indices (the stable topological order). */
struct heap {
  uint32_t *v;
  size_t n;
};

static void heap_push(struct heap *h, uint32_t x) {
  size_t i = h->n++;
  for (; i > 0 && h->v[(i - 1) / 2] > x; i = (i - 1) / 2) h->v[i] = h->v[(i - 1) / 2];
  h->v[i] = x;
}

static uint32_t heap_pop(struct heap *h) {
  uint32_t top = h->v[0], x = h->v[--h->n];
  size_t i = 0;
  for (;;) {
    size_t c = 2 * i + 1;
    if (c >= h->n) break;
    if (c + 1 < h->n && h->v[c + 1] < h->v[c]) c++;
    if (h->v[c] >= x) break;
    h->v[i] = h->v[c];
    i = c;
  }
  if (h->n) h->v[i] = x;
  return top;
}

/* Drops the repeats among the N values at V, keeping the first of each in
 * its place (dependencies stay in the order written); returns how many
 * remain. */
static uint32_t unique_u64(uint64_t *v, uint32_t n) {
  if (n < 2) return n;
  uint32_t k = 0;
  if (n <= 16) {
    for (uint32_t i = 0; i < n; i++) {
      bool seen = false;
      for (uint32_t j = 0; j < k && !seen; j++) seen = v[j] == v[i];
      if (!seen) v[k++] = v[i];
    }
    return k;
  }
  GHashTable *seen = g_hash_table_new(g_int64_hash, g_int64_equal);
  uint64_t *keys = g_memdup2(v, n * sizeof *v);
  for (uint32_t i = 0; i < n; i++)
    if (g_hash_table_add(seen, &keys[i])) v[k++] = keys[i];
  g_hash_table_destroy(seen);
  g_free(keys);
  return k;
}

/* Reads rank R's file into RR; *TOTAL counts the nodes of every rank. */
static bool read_rank(const char *path, uint32_t r, uint32_t n, const struct chakra_opts *o,
                      GHashTable *groups, struct wl_program *p, GStringChunk *names,
                      struct rread *rr, uint64_t *total, char **err) {
  struct chakra_cursor *c = chakra_open(path, r, n, o, groups, p, err);
  if (!c) return false;
  rr->nodes = g_array_new(FALSE, FALSE, sizeof(struct rnode));
  rr->deps = g_array_new(FALSE, FALSE, sizeof(uint64_t));
  rr->starts = g_array_new(FALSE, FALSE, sizeof(uint64_t));
  rr->pgs = g_array_new(FALSE, FALSE, sizeof(uint32_t));
  rr->op_id = g_array_new(FALSE, FALSE, sizeof(uint64_t));
  struct chakra_node nd;
  int got;
  while ((got = chakra_next(c, &nd, err)) > 0) {
    if (++*total > WL_MAX_OPS) {
      *err = cur_error(c, &nd.id, "expected a trace of at most 2^25 nodes over all ranks, got more");
      got = -1;
      break;
    }
    struct rnode x = {.op = nd.op, .call = nd.call, .id = nd.id, .has_op = nd.has_op,
                      .dep_first = rr->deps->len, .n_deps = (uint32_t)nd.n_deps,
                      .start_first = rr->starts->len, .n_start = (uint32_t)nd.n_start,
                      .pg_first = rr->pgs->len};
    g_array_append_vals(rr->deps, nd.deps, (guint)nd.n_deps);
    g_array_append_vals(rr->starts, nd.start_deps, (guint)nd.n_start);
    if (nd.has_op && nd.op.kind == WL_COLL) {
      x.pg_name = g_string_chunk_insert_const(names, nd.pg_name);
      if (nd.pg) {
        g_array_append_vals(rr->pgs, nd.pg, nd.pg_n);
        x.pg_n = nd.pg_n;
      }
    }
    g_array_append_val(rr->nodes, x);
  }
  chakra_close(c);
  return got == 0;
}

/* "PATH: rank R node ID: " errors of the whole-program checks. */
static char *node_error(const char *path, uint32_t r, uint64_t id, const char *fmt, ...)
    G_GNUC_PRINTF(4, 5);
static char *node_error(const char *path, uint32_t r, uint64_t id, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  char *msg = g_strdup_vprintf(fmt, ap);
  va_end(ap);
  char *out = g_strdup_printf("%s: rank %u node %" G_GUINT64_FORMAT ": %s", path, r, id, msg);
  g_free(msg);
  return out;
}

/* Rank R's nodes RR as graph rank R of P: dependencies resolved to nodes
 * of the file, ops in the stable topological order (the lowest-numbered
 * node whose dependencies are placed comes next), a node without op
 * passing on what it waits for. */
static bool place_rank(const char *path, uint32_t r, struct rread *rr, struct wl_program *p,
                       char **err) {
  uint32_t nn = rr->nodes->len;
  struct rnode *nodes = (struct rnode *)(void *)rr->nodes->data;
  GHashTable *index = g_hash_table_new(g_int64_hash, g_int64_equal);
  bool ok = true;
  for (uint32_t i = 0; i < nn && ok; i++) {
    if (g_hash_table_contains(index, &nodes[i].id)) {
      *err = node_error(path, r, nodes[i].id, "expected node ids unique in a file, got this one twice");
      ok = false;
    }
    g_hash_table_insert(index, &nodes[i].id, GUINT_TO_POINTER(i + 1));
  }
  /* Ids to indices; each node's dependencies once. */
  for (int list = 0; list < 2 && ok; list++) {
    GArray *a = list ? rr->starts : rr->deps;
    uint64_t *v = (uint64_t *)(void *)a->data;
    for (uint32_t i = 0; i < nn && ok; i++) {
      uint32_t first = list ? nodes[i].start_first : nodes[i].dep_first;
      uint32_t *cnt = list ? &nodes[i].n_start : &nodes[i].n_deps;
      for (uint32_t k = 0; k < *cnt && ok; k++) {
        uint32_t at = GPOINTER_TO_UINT(g_hash_table_lookup(index, &v[first + k]));
        if (!at || at - 1 == i) {
          *err = node_error(path, r, nodes[i].id, at ? "expected %s on other nodes, got itself"
                                                     : "expected %s to name nodes of this file, got %"
                                                       G_GUINT64_FORMAT ", which is none",
                            list ? "trigsim_irequires" : "its ctrl_deps and data_deps",
                            v[first + k]);
          ok = false;
        }
        v[first + k] = at - 1;
      }
      if (*cnt) *cnt = unique_u64(v + first, *cnt);
    }
  }
  g_hash_table_destroy(index);
  if (!ok) return false;
  /* Children lists (CSR) and the order. */
  uint32_t *deg = g_new0(uint32_t, nn + 1), *off = g_new0(uint32_t, nn + 1), *fill;
  uint32_t *order = g_new(uint32_t, MAX(nn, 1));
  const uint64_t *dv = (const uint64_t *)(void *)rr->deps->data;
  const uint64_t *sv = (const uint64_t *)(void *)rr->starts->data;
  for (uint32_t i = 0; i < nn; i++) {
    for (uint32_t k = 0; k < nodes[i].n_deps; k++) off[dv[nodes[i].dep_first + k] + 1]++;
    for (uint32_t k = 0; k < nodes[i].n_start; k++) off[sv[nodes[i].start_first + k] + 1]++;
    deg[i] = nodes[i].n_deps + nodes[i].n_start;
  }
  for (uint32_t i = 0; i < nn; i++) off[i + 1] += off[i];
  uint32_t *child = g_new(uint32_t, MAX(off[nn], 1));
  fill = g_memdup2(off, (nn + 1) * sizeof *off);
  for (uint32_t i = 0; i < nn; i++) {
    for (uint32_t k = 0; k < nodes[i].n_deps; k++) child[fill[dv[nodes[i].dep_first + k]]++] = i;
    for (uint32_t k = 0; k < nodes[i].n_start; k++) child[fill[sv[nodes[i].start_first + k]]++] = i;
  }
  struct heap h = {g_new(uint32_t, MAX(nn, 1)), 0};
  for (uint32_t i = 0; i < nn; i++)
    if (!deg[i]) heap_push(&h, i);
  uint32_t placed = 0;
  while (h.n) {
    uint32_t i = heap_pop(&h);
    order[placed++] = i;
    for (uint32_t k = off[i]; k < off[i + 1]; k++)
      if (--deg[child[k]] == 0) heap_push(&h, child[k]);
  }
  if (placed < nn) {
    uint32_t i = 0;
    while (!deg[i]) i++;
    *err = node_error(path, r, nodes[i].id, "expected dependencies without a cycle, got one "
                      "through this node");
    ok = false;
  }
  /* Ops in that order; what a node without op waits for (EFF: the ops,
   * by their index in P) passes to what waits for it. */
  GArray **eff = g_new0(GArray *, MAX(nn, 1));
  uint32_t *op_of = g_new(uint32_t, MAX(nn, 1));
  GArray *want = g_array_new(FALSE, FALSE, sizeof(uint64_t));
  wl_graph(p, r);
  for (uint32_t q = 0; q < placed && ok; q++) {
    uint32_t i = order[q];
    const struct rnode *x = &nodes[i];
    g_array_set_size(want, 0);
    for (uint32_t k = 0; k < x->n_deps; k++) {
      uint32_t d = (uint32_t)dv[x->dep_first + k];
      if (nodes[d].has_op) {
        uint64_t op = op_of[d];
        g_array_append_val(want, op);
      } else {
        g_array_append_vals(want, eff[d]->data, eff[d]->len);
      }
    }
    guint n_want = unique_u64((uint64_t *)(void *)want->data, want->len);
    g_array_set_size(want, n_want);
    if (!x->has_op) {
      eff[i] = g_array_copy(want);
      continue;
    }
    wl_push_op(p, r, &x->op);
    uint32_t me = op_of[i] = wl_last(p, r);
    g_array_append_val(rr->op_id, x->id);
    for (guint k = 0; k < want->len; k++) wl_requires(p, r, me, (uint32_t)g_array_index(want, uint64_t, k));
    for (uint32_t k = 0; k < x->n_start; k++) {
      uint32_t d = (uint32_t)sv[x->start_first + k];
      if (nodes[d].has_op) {
        wl_irequires(p, r, me, op_of[d]);
      } else { /* a node of no op starts when it may: once what it waits for is done */
        for (guint e = 0; e < eff[d]->len; e++)
          wl_requires(p, r, me, (uint32_t)g_array_index(eff[d], uint64_t, e));
      }
    }
  }
  for (uint32_t i = 0; i < nn; i++)
    if (eff[i]) g_array_free(eff[i], TRUE);
  g_free(eff);
  g_free(op_of);
  g_array_free(want, TRUE);
  g_free(h.v);
  g_free(deg);
  g_free(off);
  g_free(fill);
  g_free(child);
  g_free(order);
  return ok;
}

/* Ranks R's ops of group G: the nodes they came from, for messages. */
struct gcalls {
  GArray *ops; /* uint32_t op indices of rank r, in its order */
};

/* Gives every collective its group and tag, and checks that the ranks of
 * a group call its collectives in the same order, of the same type, size
 * and root, and agree on what a pg_name means. */
static bool place_colls(const char *const *paths, struct rread *rr, struct wl_program *p,
                        char **err) {
  uint32_t n = p->n_ranks;
  GHashTable *named = g_hash_table_new(g_str_hash, g_str_equal); /* pg_name -> first (rank, op) + 1 */
  GArray **calls = g_new0(GArray *, n); /* per rank: GArray* per group, of op indices */
  bool ok = true;
  for (uint32_t r = 0; r < n && ok; r++) {
    calls[r] = g_array_new(FALSE, TRUE, sizeof(GArray *));
    const struct rnode *nodes = (const struct rnode *)(void *)rr[r].nodes->data;
    const uint32_t *pgs = (const uint32_t *)(void *)rr[r].pgs->data;
    /* The nodes of the ops, in op order: op_id has their ids; find the
     * node of each collective by walking the nodes with ops alike. */
    GHashTable *by_id = g_hash_table_new(g_int64_hash, g_int64_equal);
    for (guint i = 0; i < rr[r].nodes->len; i++)
      if (nodes[i].has_op) g_hash_table_insert(by_id, (gpointer)&nodes[i].id, (gpointer)&nodes[i]);
    struct wl_rank *rk = &p->ranks[r];
    for (size_t i = 0; i < rk->n_ops && ok; i++) {
      struct wl_op *o = &rk->ops[i];
      if (o->kind != WL_COLL) continue;
      uint64_t id = g_array_index(rr[r].op_id, uint64_t, i);
      const struct rnode *x = g_hash_table_lookup(by_id, &id);
      uint32_t g = x->pg_n ? wl_group_add(p, pgs + x->pg_first, x->pg_n) : 0;
      if (g >= CHAKRA_MAX_GROUPS) {
        *err = node_error(paths[r], r, id, "expected at most %d distinct process groups, got more",
                          CHAKRA_MAX_GROUPS - 1);
        ok = false;
        break;
      }
      if (*x->pg_name) { /* the same name, the same ranks on every rank */
        gpointer first = g_hash_table_lookup(named, x->pg_name);
        if (!first) {
          g_hash_table_insert(named, (gpointer)x->pg_name, GUINT_TO_POINTER(g + 1));
        } else if (GPOINTER_TO_UINT(first) - 1 != g) {
          *err = node_error(paths[r], r, id, "expected process group %s to hold the ranks every "
                            "rank gives it, got other ranks than an earlier rank's", x->pg_name);
          ok = false;
          break;
        }
      }
      struct wl_call call = x->call;
      call.group = g;
      o->kernel = wl_call_add(p, &call);
      if (g >= calls[r]->len) g_array_set_size(calls[r], g + 1);
      GArray **list = &g_array_index(calls[r], GArray *, g);
      if (!*list) *list = g_array_new(FALSE, FALSE, sizeof(uint32_t));
      uint32_t k = (*list)->len, op = (uint32_t)i;
      g_array_append_val(*list, op);
      o->tag = CHAKRA_COLL_TAG | (g << CHAKRA_CALL_BITS) |
               ((WL_COLL_TAGS * k) & ((1u << CHAKRA_CALL_BITS) - 1));
    }
    g_hash_table_destroy(by_id);
  }
  /* Every member calls the group's collectives alike: each against the
   * group's first rank. */
  for (uint32_t g = 0; g <= wl_groups(p) && ok; g++) {
    const struct wl_group *grp = wl_group_get(p, g);
    uint32_t m = grp ? grp->n : n;
    uint32_t r0 = grp ? grp->ranks[0] : 0;
    GArray *ref = g < calls[r0]->len ? g_array_index(calls[r0], GArray *, g) : NULL;
    for (uint32_t j = 1; j < m && ok; j++) {
      uint32_t r = grp ? grp->ranks[j] : j;
      GArray *mine = g < calls[r]->len ? g_array_index(calls[r], GArray *, g) : NULL;
      guint a = ref ? ref->len : 0, b = mine ? mine->len : 0;
      for (guint k = 0; k < MAX(a, b) && ok; k++) {
        const struct wl_op *x = k < a ? &p->ranks[r0].ops[g_array_index(ref, uint32_t, k)] : NULL;
        const struct wl_op *y = k < b ? &p->ranks[r].ops[g_array_index(mine, uint32_t, k)] : NULL;
        uint8_t xk = x ? wl_call_of(p, x)->kind : 0, yk = y ? wl_call_of(p, y)->kind : 0;
        if (x && y && xk == yk && x->bytes == y->bytes && x->peer == y->peer) continue;
        uint64_t xid = x ? g_array_index(rr[r0].op_id, uint64_t, g_array_index(ref, uint32_t, k)) : 0;
        uint64_t yid = y ? g_array_index(rr[r].op_id, uint64_t, g_array_index(mine, uint32_t, k)) : 0;
        char *grpname = grp ? g_strdup_printf("of process group {%u..%u, %u ranks}", grp->ranks[0],
                                              grp->ranks[grp->n - 1], grp->n)
                            : g_strdup("of every rank");
        if (y) {
          char *want = x ? g_strdup_printf("%s of %" G_GINT64_FORMAT " B from root %u, as rank %u "
                                           "calls it (node %" G_GUINT64_FORMAT ")",
                                           comm_names[coll_comm[xk]], x->bytes, x->peer,
                                           r0, xid)
                         : g_strdup_printf("no more than the %u rank %u calls", a, r0);
          *err = node_error(paths[r], r, yid, "expected collective %u %s to be %s, got %s of %"
                            G_GINT64_FORMAT " B from root %u", k + 1, grpname, want,
                            comm_names[coll_comm[yk]], y->bytes, y->peer);
          g_free(want);
        } else {
          *err = node_error(paths[r0], r0, xid, "expected every rank of the group to call "
                            "collective %u %s, got none on rank %u (it calls %u)", k + 1, grpname,
                            r, b);
        }
        g_free(grpname);
        ok = false;
      }
    }
  }
  for (uint32_t r = 0; r < n; r++) {
    if (!calls[r]) continue;
    for (guint g = 0; g < calls[r]->len; g++)
      if (g_array_index(calls[r], GArray *, g)) g_array_free(g_array_index(calls[r], GArray *, g), TRUE);
    g_array_free(calls[r], TRUE);
  }
  g_free(calls);
  g_hash_table_destroy(named);
  return ok;
}

/* A channel of messages: (sender, receiver, tag). */
struct chan {
  uint32_t src, dst, tag;
};

static bool chan_less(const struct chan *a, const struct chan *b) {
  if (a->src != b->src) return a->src < b->src;
  if (a->dst != b->dst) return a->dst < b->dst;
  return a->tag < b->tag;
}

static guint chan_hash(gconstpointer k) {
  const struct chan *c = k;
  return c->src * 2654435761u ^ c->dst * 40503u ^ c->tag;
}

static gboolean chan_equal(gconstpointer a, gconstpointer b) {
  return !memcmp(a, b, sizeof(struct chan));
}

struct chan_ops {
  struct chan key;
  GArray *sends, *recvs; /* op indices, in program order */
};

static void chan_ops_free(gpointer p) {
  struct chan_ops *c = p;
  g_array_free(c->sends, TRUE);
  g_array_free(c->recvs, TRUE);
  g_free(c);
}

/* Every send meets a receive of its size and every receive a send: the
 * k-th of a channel at each end (program.h). */
static bool match_messages(const char *const *paths, struct rread *rr, const struct wl_program *p,
                           char **err) {
  GHashTable *chans = g_hash_table_new_full(chan_hash, chan_equal, NULL, chan_ops_free);
  for (uint32_t r = 0; r < p->n_ranks; r++)
    for (size_t i = 0; i < p->ranks[r].n_ops; i++) {
      const struct wl_op *o = &p->ranks[r].ops[i];
      if (o->kind != WL_SEND && o->kind != WL_RECV) continue;
      struct chan key = {o->kind == WL_SEND ? r : o->peer, o->kind == WL_SEND ? o->peer : r, o->tag};
      struct chan_ops *c = g_hash_table_lookup(chans, &key);
      if (!c) {
        c = g_new(struct chan_ops, 1);
        c->key = key;
        c->sends = g_array_new(FALSE, FALSE, sizeof(uint32_t));
        c->recvs = g_array_new(FALSE, FALSE, sizeof(uint32_t));
        g_hash_table_insert(chans, &c->key, c);
      }
      uint32_t op = (uint32_t)i;
      g_array_append_val(o->kind == WL_SEND ? c->sends : c->recvs, op);
    }
  /* Deterministic: the first failing channel by (src, dst, tag). */
  GList *keys = g_hash_table_get_values(chans);
  bool ok = true;
  struct chan best = {UINT32_MAX, UINT32_MAX, UINT32_MAX};
  for (GList *l = keys; l; l = l->next) {
    struct chan_ops *c = l->data;
    guint a = c->sends->len, b = c->recvs->len;
    bool bad = a != b;
    for (guint k = 0; k < MIN(a, b) && !bad; k++)
      bad = p->ranks[c->key.src].ops[g_array_index(c->sends, uint32_t, k)].bytes !=
            p->ranks[c->key.dst].ops[g_array_index(c->recvs, uint32_t, k)].bytes;
    if (bad && chan_less(&c->key, &best)) best = c->key;
  }
  g_list_free(keys);
  if (best.src != UINT32_MAX) {
    const struct chan_ops *c = g_hash_table_lookup(chans, &best);
    guint a = c->sends->len, b = c->recvs->len, k = 0;
    while (k < MIN(a, b) && p->ranks[best.src].ops[g_array_index(c->sends, uint32_t, k)].bytes ==
                                p->ranks[best.dst].ops[g_array_index(c->recvs, uint32_t, k)].bytes)
      k++;
    if (k < MIN(a, b)) {
      uint32_t so = g_array_index(c->sends, uint32_t, k), ro = g_array_index(c->recvs, uint32_t, k);
      *err = node_error(paths[best.dst], best.dst, g_array_index(rr[best.dst].op_id, uint64_t, ro),
                        "expected a receive of the %" G_GINT64_FORMAT " B that rank %u sends it with "
                        "comm_tag %u (node %" G_GUINT64_FORMAT ", its message %u on that tag), got %"
                        G_GINT64_FORMAT " B", p->ranks[best.src].ops[so].bytes, best.src, best.tag,
                        g_array_index(rr[best.src].op_id, uint64_t, so), k + 1,
                        p->ranks[best.dst].ops[ro].bytes);
    } else if (b > a) {
      uint32_t ro = g_array_index(c->recvs, uint32_t, a);
      *err = node_error(paths[best.dst], best.dst, g_array_index(rr[best.dst].op_id, uint64_t, ro),
                        "expected a COMM_SEND_NODE on rank %u to rank %u with comm_tag %u to meet "
                        "this receive (its message %u on that tag), got %u such sends",
                        best.src, best.dst, best.tag, a + 1, a);
    } else {
      uint32_t so = g_array_index(c->sends, uint32_t, b);
      *err = node_error(paths[best.src], best.src, g_array_index(rr[best.src].op_id, uint64_t, so),
                        "expected a COMM_RECV_NODE on rank %u from rank %u with comm_tag %u to meet "
                        "this send (its message %u on that tag), got %u such receives",
                        best.dst, best.src, best.tag, b + 1, b);
    }
    ok = false;
  }
  g_hash_table_destroy(chans);
  return ok;
}

static char *rank_path(const char *prefix, uint32_t r) {
  return g_strdup_printf("%s.%u.et", prefix, r);
}

struct wl_program *wl_chakra_read(const char *prefix, uint32_t n_ranks, uint32_t max_ranks,
                                  const struct chakra_opts *o, GHashTable *groups, char **err) {
  uint32_t n = n_ranks;
  if (!n) {
    char *path = NULL;
    while (n <= max_ranks) {
      g_free(path);
      path = rank_path(prefix, n);
      if (!g_file_test(path, G_FILE_TEST_EXISTS)) break;
      n++;
    }
    g_free(path);
    if (!n) {
      *err = g_strdup_printf("expected Chakra trace files %s.0.et, %s.1.et, ..., got no %s.0.et",
                             prefix, prefix, prefix);
      return NULL;
    }
  }
  if (n > max_ranks) {
    *err = g_strdup_printf("expected at most %u ranks (the network's nodes), got %s%u files from "
                           "%s.0.et", max_ranks, n_ranks ? "" : "at least ", n, prefix);
    return NULL;
  }
  struct wl_program *p = wl_program_new(n);
  struct rread *rr = g_new0(struct rread, n);
  char **paths = g_new0(char *, n + 1);
  GStringChunk *names = g_string_chunk_new(256);
  uint64_t total = 0;
  bool ok = true;
  for (uint32_t r = 0; r < n && ok; r++) {
    paths[r] = rank_path(prefix, r);
    ok = read_rank(paths[r], r, n, o, groups, p, names, &rr[r], &total, err) &&
         place_rank(paths[r], r, &rr[r], p, err);
  }
  ok = ok && place_colls((const char *const *)paths, rr, p, err) &&
       match_messages((const char *const *)paths, rr, p, err);
  for (uint32_t r = 0; r < n; r++) rread_clear(&rr[r]);
  g_free(rr);
  g_strfreev(paths);
  g_string_chunk_free(names);
  if (!ok) {
    wl_program_free(p);
    return NULL;
  }
  return p;
}

GHashTable *chakra_groups_load(const char *path, uint32_t n_ranks, char **err) {
  char *why = NULL;
  struct sc_node *root = sc_load_file(path, &why);
  if (!root) {
    *err = g_strdup_printf("%s: expected ASTRA-sim's communicator-group JSON, got %s", path, why);
    g_free(why);
    return NULL;
  }
  GHashTable *t = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, array_free);
  bool ok = root->kind == SC_MAP;
  if (!ok) *err = sc_error_at(root, "comm_groups", "expected a mapping of group names to lists of ranks, got %s", "a scalar or list");
  for (size_t i = 0; ok && i < root->n_pairs; i++) {
    GArray *ranks = g_array_new(FALSE, FALSE, sizeof(uint32_t));
    if (!ranks_of(root->pairs[i].value, n_ranks, ranks, &why)) {
      *err = sc_error_at(root->pairs[i].value, root->pairs[i].key, "expected %s", why);
      g_free(why);
      g_array_free(ranks, TRUE);
      ok = false;
      break;
    }
    g_hash_table_replace(t, g_strdup(root->pairs[i].key), ranks);
  }
  sc_node_free(root);
  if (!ok) {
    g_hash_table_destroy(t);
    return NULL;
  }
  return t;
}

/* ---- op by op: an op source (workloads/ir/source.h) ----
 * The trace read a rank at a time while the run goes, as the lowering
 * driver pulls a GOAL schedule: a first pass checks the files and learns
 * what the driver must know before the first op (each rank's summary, the
 * process groups and the kernels and calls its ops name, whether its
 * messages and collectives pair up, whether it can be read in file
 * order); then each rank has a cursor that gives its ops in file order,
 * each followed by the dependency items that name it as the op that waits
 * (lag 0), and keeps only what the ops not yet forgotten need. */

struct chakra_src {
  struct wl_source src;
  char *prefix;
  char **paths;            /* per rank */
  uint32_t n_ranks;
  struct chakra_opts o;
  GHashTable *groups;      /* owned: workload.comm_groups (NULL: none) */
  struct wl_program *shell; /* no op: the kernels, calls and process groups its ops name */
  struct wl_sum *sums;     /* per rank, in file order */
  bool ordered, matched, agree;
  char *why;               /* the first pass's word on messages or collectives that do not pair up */
};

/* A message channel's or a (rank, group)'s calls: a count and a hash of
 * what each was, in order. */
struct seq_sum {
  uint64_t n, h;
};

static void seq_add(struct seq_sum *s, uint64_t v) {
  s->n++;
  s->h = (s->h ^ v) * UINT64_C(1099511628211);
}

/* Group PG (PG_N ranks, ascending; NULL: every rank) in SHELL, 0 for
 * every rank, UINT32_MAX when it has none such. */
static uint32_t group_of(const struct wl_program *shell, const uint32_t *pg, uint32_t pg_n) {
  if (!pg) return 0;
  for (uint32_t g = 1; g <= wl_groups(shell); g++) {
    const struct wl_group *grp = wl_group_get(shell, g);
    if (grp->n == pg_n && !memcmp(grp->ranks, pg, pg_n * sizeof *pg)) return g;
  }
  return UINT32_MAX;
}

/* A collective's tag: its group G and its place K among G's calls on the rank. */
static uint32_t coll_tag(uint32_t g, uint64_t k) {
  return CHAKRA_COLL_TAG | (g << CHAKRA_CALL_BITS) |
         ((uint32_t)(WL_COLL_TAGS * k) & ((1u << CHAKRA_CALL_BITS) - 1));
}

/* The first pass over rank R's file: its nodes' ids unique and every
 * dependency a node of the file; whether each names an earlier one; its
 * ops summed (summary.h), its messages and collectives hashed. */
static bool first_rank(struct chakra_src *x, uint32_t r, GHashTable *chans, GArray *calls,
                       char **err) {
  struct chakra_cursor *c =
      chakra_open(x->paths[r], r, x->n_ranks, &x->o, x->groups, x->shell, err);
  if (!c) return false;
  GHashTable *seen = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, NULL);
  GArray *later = g_array_new(FALSE, FALSE, 2 * sizeof(uint64_t)); /* (dep, node) named before read */
  struct chakra_node nd;
  int got;
  bool ok = true;
  while (ok && (got = chakra_next(c, &nd, err)) > 0) {
    if (!g_hash_table_add(seen, g_memdup2(&nd.id, sizeof nd.id))) {
      *err = node_error(x->paths[r], r, nd.id, "expected node ids unique in a file, got this one twice");
      ok = false;
      break;
    }
    for (int list = 0; list < 2 && ok; list++) {
      const uint64_t *v = list ? nd.start_deps : nd.deps;
      size_t n = list ? nd.n_start : nd.n_deps;
      for (size_t k = 0; k < n && ok; k++) {
        if (v[k] == nd.id) {
          *err = node_error(x->paths[r], r, nd.id, "expected %s on other nodes, got itself",
                            list ? "trigsim_irequires" : "its ctrl_deps and data_deps");
          ok = false;
        } else if (!g_hash_table_contains(seen, &v[k])) {
          uint64_t pair[2] = {v[k], nd.id};
          g_array_append_val(later, pair);
          x->ordered = false;
        }
      }
    }
    if (!ok || !nd.has_op) continue;
    struct wl_op *o = &nd.op;
    if (o->kind == WL_SEND || o->kind == WL_RECV) {
      bool recv = o->kind == WL_RECV;
      struct chan k = {recv ? o->peer : r, recv ? r : o->peer, o->tag};
      struct seq_sum *s = g_hash_table_lookup(chans, &k);
      if (!s) {
        s = g_new0(struct seq_sum, 2);
        g_hash_table_insert(chans, g_memdup2(&k, sizeof k), s);
      }
      seq_add(&s[recv], (uint64_t)o->bytes);
    } else if (o->kind == WL_COLL) {
      uint32_t g = nd.pg ? wl_group_add(x->shell, nd.pg, nd.pg_n) : 0;
      if (g >= CHAKRA_MAX_GROUPS) {
        *err = node_error(x->paths[r], r, nd.id, "expected at most %d distinct process groups, got "
                          "more", CHAKRA_MAX_GROUPS - 1);
        ok = false;
        break;
      }
      nd.call.group = g;
      o->kernel = wl_call_add(x->shell, &nd.call);
      if (g >= calls->len) g_array_set_size(calls, g + 1);
      seq_add(&g_array_index(calls, struct seq_sum, g),
              (uint64_t)nd.call.kind << 56 ^ (uint64_t)o->bytes ^ (uint64_t)o->peer << 40);
    }
    wl_sum_add(&x->sums[r], o);
  }
  ok = ok && got == 0;
  for (guint k = 0; ok && k < later->len; k++) {
    const uint64_t *pair = &g_array_index(later, uint64_t, 2 * k);
    if (!g_hash_table_contains(seen, &pair[0])) {
      *err = node_error(x->paths[r], r, pair[1], "expected its ctrl_deps and data_deps to name "
                        "nodes of this file, got %" G_GUINT64_FORMAT ", which is none", pair[0]);
      ok = false;
    }
  }
  g_array_free(later, TRUE);
  g_hash_table_destroy(seen);
  chakra_close(c);
  return ok;
}

void chakra_src_free(struct chakra_src *x) {
  if (!x) return;
  for (uint32_t r = 0; x->sums && r < x->n_ranks; r++) wl_sum_clear(&x->sums[r]);
  g_free(x->sums);
  wl_sum_clear(&x->src.total);
  g_free(x->prefix);
  g_strfreev(x->paths);
  wl_program_free(x->shell);
  if (x->groups) g_hash_table_destroy(x->groups);
  g_free(x->why);
  g_free(x);
}

/* What the first pass says of channel C (sends S[0], receives S[1]) that
 * does not pair up. */
static char *chan_why(const struct chakra_src *x, const struct chan *c, const struct seq_sum *s) {
  if (s[0].n != s[1].n)
    return g_strdup_printf("%s: rank %u: expected its COMM_SEND_NODEs to rank %u with comm_tag %u "
                           "to meet as many COMM_RECV_NODEs there, got %" G_GUINT64_FORMAT
                           " sends and %" G_GUINT64_FORMAT " receives", x->paths[c->src], c->src,
                           c->dst, c->tag, s[0].n, s[1].n);
  return g_strdup_printf("%s: rank %u: expected its COMM_SEND_NODEs to rank %u with comm_tag %u "
                         "to have the sizes of rank %u's receives from it, in order, got others",
                         x->paths[c->src], c->src, c->dst, c->tag, c->dst);
}

static const struct wl_source_ops chakra_ops;

struct chakra_src *chakra_src_open(const char *prefix, uint32_t n_ranks,
                                   const struct chakra_opts *o, GHashTable *groups, char **err) {
  struct chakra_src *x = g_new0(struct chakra_src, 1);
  x->prefix = g_strdup(prefix);
  x->n_ranks = n_ranks;
  x->o = *o;
  x->groups = groups;
  x->shell = wl_program_new(n_ranks);
  x->sums = g_new0(struct wl_sum, n_ranks);
  x->paths = g_new0(char *, n_ranks + 1);
  x->ordered = x->matched = x->agree = true;
  wl_sum_init(&x->src.total);
  GHashTable *chans = g_hash_table_new_full(chan_hash, chan_equal, g_free, g_free);
  GArray **calls = g_new0(GArray *, n_ranks); /* per rank: struct seq_sum per group */
  bool ok = true;
  for (uint32_t r = 0; r < n_ranks && ok; r++) {
    x->paths[r] = rank_path(prefix, r);
    calls[r] = g_array_new(FALSE, TRUE, sizeof(struct seq_sum));
    wl_sum_init(&x->sums[r]);
    ok = first_rank(x, r, chans, calls[r], err);
  }
  /* The first channel that does not pair up, by (src, dst, tag). */
  GHashTableIter it;
  gpointer k, v;
  const struct chan *bad = NULL;
  const struct seq_sum *bad_s = NULL;
  g_hash_table_iter_init(&it, chans);
  while (ok && g_hash_table_iter_next(&it, &k, &v)) {
    const struct seq_sum *s = v;
    if (s[0].n == s[1].n && s[0].h == s[1].h) continue;
    x->matched = false;
    if (!bad || chan_less(k, bad)) bad = k, bad_s = s;
  }
  if (bad) x->why = chan_why(x, bad, bad_s);
  /* Every member calls a group's collectives alike: as its first rank does. */
  for (uint32_t g = 0; ok && g <= wl_groups(x->shell); g++) {
    const struct wl_group *grp = wl_group_get(x->shell, g);
    uint32_t m = grp ? grp->n : n_ranks;
    struct seq_sum ref = {0, 0};
    for (uint32_t j = 0; j < m; j++) {
      uint32_t r = grp ? grp->ranks[j] : j;
      struct seq_sum s = g < calls[r]->len ? g_array_index(calls[r], struct seq_sum, g)
                                           : (struct seq_sum){0, 0};
      if (!j) {
        ref = s;
      } else if (s.n != ref.n || s.h != ref.h) {
        if (x->agree && !x->why)
          x->why = g_strdup_printf("%s: rank %u: expected the collectives of %s%u ranks to be "
                                   "those rank %u calls, in order (%" G_GUINT64_FORMAT "), got "
                                   "others (%" G_GUINT64_FORMAT ")", x->paths[r], r,
                                   grp ? "its process group of " : "all ", m,
                                   grp ? grp->ranks[0] : 0, ref.n, s.n);
        x->agree = false;
      }
    }
  }
  for (uint32_t r = 0; r < n_ranks; r++)
    if (calls[r]) g_array_free(calls[r], TRUE);
  g_free(calls);
  g_hash_table_destroy(chans);
  if (!ok) {
    chakra_src_free(x);
    return NULL;
  }
  x->src = (struct wl_source){.ops = &chakra_ops, .ctx = x, .n_ranks = n_ranks,
                              .sums = x->sums, .descs = x->shell->descs, .total = x->src.total,
                              /* each op's dependency items right after it; a trace whose
                                 file order is not a program's order is read whole */
                              .lag = x->ordered ? 0 : UINT32_MAX, .matched = x->matched && x->agree,
                              .key = "workload.files",
                              .lag_rule = "every dependency on a node written before it (file "
                                          "order a program order)"};
  for (uint32_t r = 0; r < n_ranks; r++) {
    x->src.n_ops += x->sums[r].ops;
    wl_sum_merge(&x->src.total, &x->sums[r]);
  }
  return x;
}

struct wl_source *chakra_src_source(struct chakra_src *x) { return &x->src; }

bool chakra_src_streams(const struct chakra_src *x) {
  return x->ordered && x->matched && x->agree;
}

struct wl_program *chakra_src_program(const struct chakra_src *x, char **err) {
  return wl_chakra_read(x->prefix, x->n_ranks, x->n_ranks, &x->o, x->groups, err);
}

/* A node of the rank read and not forgotten: an op (its index in the
 * rank's order and the tag the driver took it with), or a node of no op
 * and the ids of the ops it passes on to what waits for it. */
struct slive {
  bool op;
  uint64_t index;
  uint32_t tag;
  GArray *eff; /* no op: uint64_t node ids */
};

static void slive_free(gpointer p) {
  struct slive *s = p;
  if (s->eff) g_array_free(s->eff, TRUE);
  g_free(s);
}

struct wl_cursor {
  const struct chakra_src *x;
  uint32_t rank;
  struct chakra_cursor *c;
  GHashTable *live;        /* node id (uint64_t, owned) -> struct slive */
  GHashTable *handles;     /* handle -> node id (owned) */
  uint32_t next_handle;
  uint64_t n_ops;
  GArray *calls;           /* uint64_t per group: its calls taken */
  GArray *items;           /* struct wl_item: dependency items to give, from at on */
  guint at;
  bool peeked, ended, failed;
  struct chakra_node peek; /* valid until the cursor moves */
  guint swept;             /* live's size after its last sweep */
};

static struct wl_cursor *cur_open(void *ctx, uint32_t rank, bool ops_only) {
  struct chakra_src *x = ctx;
  g_assert(!ops_only); /* no chains known (wl_source.chains NULL) */
  char *err = NULL;
  struct chakra_cursor *c =
      chakra_open(x->paths[rank], rank, x->n_ranks, &x->o, x->groups, x->shell, &err);
  g_free(err); /* its next says it cannot be read */
  struct wl_cursor *s = g_new0(struct wl_cursor, 1);
  *s = (struct wl_cursor){
      .x = x, .rank = rank, .c = c, .failed = !c,
      .live = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, slive_free),
      .handles = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL, g_free),
      .calls = g_array_new(FALSE, TRUE, sizeof(uint64_t)),
      .items = g_array_new(FALSE, FALSE, sizeof(struct wl_item)), .swept = 64};
  return s;
}

static void cur_close(void *ctx, struct wl_cursor *s) {
  (void)ctx;
  if (!s) return;
  chakra_close(s->c);
  g_hash_table_destroy(s->live);
  g_hash_table_destroy(s->handles);
  g_array_free(s->calls, TRUE);
  g_array_free(s->items, TRUE);
  g_free(s);
}

size_t chakra_cursor_kept(const struct wl_cursor *s) { return g_hash_table_size(s->live); }

/* Drops the nodes of no op whose ops are all forgotten: what waits for
 * them waits for nothing (run once live has doubled since the last time). */
static void sweep(struct wl_cursor *s) {
  GHashTableIter it;
  gpointer v;
  g_hash_table_iter_init(&it, s->live);
  while (g_hash_table_iter_next(&it, NULL, &v)) {
    const struct slive *l = v;
    if (l->op) continue;
    bool any = false;
    for (guint k = 0; k < l->eff->len && !any; k++)
      any = g_hash_table_contains(s->live, &g_array_index(l->eff, uint64_t, k));
    if (!any) g_hash_table_iter_remove(&it);
  }
  s->swept = MAX(64, 2 * g_hash_table_size(s->live));
}

/* The ops (node ids) the node with deps DEPS waits for: an op itself, a
 * node of no op what it passes on, a forgotten node nothing; each once, in
 * the order named (as place_rank's want). */
static void wants(struct wl_cursor *s, const uint64_t *deps, size_t n, GArray *out) {
  g_array_set_size(out, 0);
  uint64_t *d = g_memdup2(deps, MAX(n, 1) * sizeof *d);
  uint32_t m = unique_u64(d, (uint32_t)n);
  for (uint32_t k = 0; k < m; k++) {
    const struct slive *l = g_hash_table_lookup(s->live, &d[k]);
    if (!l) continue;
    if (l->op) {
      g_array_append_val(out, d[k]);
      continue;
    }
    for (guint e = 0; e < l->eff->len; e++) /* those not forgotten since */
      if (g_hash_table_contains(s->live, &g_array_index(l->eff, uint64_t, e)))
        g_array_append_val(out, g_array_index(l->eff, uint64_t, e));
  }
  g_array_set_size(out, unique_u64((uint64_t *)(void *)out->data, out->len));
  g_free(d);
}

/* A dependency item: op index A (tag TA) waits for node ID's op (its end,
 * or with ON_START its start). */
static void dep_item(struct wl_cursor *s, uint64_t a, uint32_t ta, uint64_t id, bool on_start) {
  const struct slive *l = g_hash_table_lookup(s->live, &id);
  struct wl_item it = {.kind = WL_ITEM_DEP, .a = a, .ta = ta, .on_start = on_start,
                       .b = l->index, .tb = l->tag};
  g_array_append_val(s->items, it);
}

/* The node just read (not an op) into the live table. */
static void pass_on(struct wl_cursor *s, GArray *want) {
  struct slive *l = g_new0(struct slive, 1);
  wants(s, s->peek.deps, s->peek.n_deps, want);
  l->eff = g_array_copy(want);
  g_hash_table_replace(s->live, g_memdup2(&s->peek.id, sizeof s->peek.id), l);
}

static int cur_next(void *ctx, struct wl_cursor *s, struct wl_item *it, bool take, uint32_t tag) {
  (void)ctx;
  memset(it, 0, sizeof *it);
  if (s->at < s->items->len) { /* the dependencies of the op taken last */
    *it = g_array_index(s->items, struct wl_item, s->at++);
    return 1;
  }
  if (s->failed) return -1;
  g_array_set_size(s->items, 0);
  s->at = 0;
  GArray *want = g_array_new(FALSE, FALSE, sizeof(uint64_t));
  char *err = NULL;
  while (!s->peeked && !s->ended) {
    int got = chakra_next(s->c, &s->peek, &err);
    if (got < 0) { /* the first pass read it: the file changed since */
      g_free(err);
      g_array_free(want, TRUE);
      s->failed = true;
      return -1;
    }
    if (got == 0) s->ended = true;
    else if (s->peek.has_op) s->peeked = true;
    else pass_on(s, want); /* a node of no op: what it waits for, passed on */
  }
  if (s->ended) {
    g_array_free(want, TRUE);
    it->kind = WL_ITEM_END;
    return 1;
  }
  if (!take) {
    g_array_free(want, TRUE);
    return 2;
  }
  s->peeked = false;
  const struct chakra_node *nd = &s->peek;
  *it = (struct wl_item){.kind = WL_ITEM_OP, .op = nd->op, .handle = ++s->next_handle};
  if (nd->op.kind == WL_COLL) {
    uint32_t g = group_of(s->x->shell, nd->pg, nd->pg_n);
    if (g == UINT32_MAX) { /* the first pass added every group: the file changed since */
      g_array_free(want, TRUE);
      s->failed = true;
      return -1;
    }
    if (g >= s->calls->len) g_array_set_size(s->calls, g + 1);
    struct wl_call call = nd->call;
    call.group = g;
    it->op.kernel = wl_call_add(s->x->shell, &call); /* the first pass's entry */
    it->op.tag = coll_tag(g, g_array_index(s->calls, uint64_t, g)++);
  }
  uint64_t me = s->n_ops++;
  wants(s, nd->deps, nd->n_deps, want);
  for (guint k = 0; k < want->len; k++) dep_item(s, me, tag, g_array_index(want, uint64_t, k), false);
  uint64_t *st = g_memdup2(nd->start_deps, MAX(nd->n_start, 1) * sizeof *st);
  uint32_t n_st = unique_u64(st, (uint32_t)nd->n_start);
  for (uint32_t k = 0; k < n_st; k++) {
    const struct slive *l = g_hash_table_lookup(s->live, &st[k]);
    if (!l) continue; /* forgotten: it started long ago */
    if (l->op) {
      dep_item(s, me, tag, st[k], true);
    } else { /* a node of no op starts when it may: once what it waits for is done */
      for (guint e = 0; e < l->eff->len; e++)
        if (g_hash_table_contains(s->live, &g_array_index(l->eff, uint64_t, e)))
          dep_item(s, me, tag, g_array_index(l->eff, uint64_t, e), false);
    }
  }
  g_free(st);
  g_array_free(want, TRUE);
  struct slive *l = g_new0(struct slive, 1);
  *l = (struct slive){.op = true, .index = me, .tag = tag};
  g_hash_table_replace(s->live, g_memdup2(&nd->id, sizeof nd->id), l);
  g_hash_table_insert(s->handles, GUINT_TO_POINTER(it->handle), g_memdup2(&nd->id, sizeof nd->id));
  return 1;
}

static void cur_forget(void *ctx, struct wl_cursor *s, uint32_t handle) {
  (void)ctx;
  uint64_t *id = g_hash_table_lookup(s->handles, GUINT_TO_POINTER(handle));
  if (!id) return;
  g_hash_table_remove(s->live, id);
  g_hash_table_remove(s->handles, GUINT_TO_POINTER(handle));
  if (g_hash_table_size(s->live) > s->swept) sweep(s);
}

static struct wl_program *src_program(void *ctx, char **err) {
  return chakra_src_program(ctx, err);
}

/* What the first pass says (the whole reader names the node; a trace too
 * long to read whole gets this). */
static char *src_unmatched(void *ctx, bool *deadlock) {
  const struct chakra_src *x = ctx;
  *deadlock = false;
  return g_strdup(x->why);
}

static const struct wl_source_ops chakra_ops = {
    .open = cur_open,
    .close = cur_close,
    .next = cur_next,
    .forget = cur_forget,
    .program = src_program,
    .unmatched = src_unmatched,
};

/* ---- the workload ---- */

/* Whether CTX's policy runs a compute op placed at WHERE (enum wl_where):
 * the catalog's hook; a context without one (a test's) knows no policy. */
static bool on(const struct wl_ctx *ctx, uint8_t where) {
  return !ctx->computes_on || ctx->computes_on(ctx, where);
}

/* The reader's options for CTX's policy. */
static struct chakra_opts opts_of(const struct wl_ctx *ctx) {
  const struct chakra_config *c = ctx->config;
  struct hw_config hw = wl_hw_of(ctx->sc);
  bool host = on(ctx, WL_ON_CPU);
  uint32_t wgs = (uint32_t)(c->wgs ? c->wgs : MAX(hw.gpu->cus, 1));
  return (struct chakra_opts){
      .compute = (uint8_t)c->compute,
      .wgs = wgs,
      .dur_wgs = on(ctx, WL_ON_GPU) ? wgs : 1,
      .cpu_skip = c->cpu_ops == CHAKRA_CPU_SKIP || (c->cpu_ops == CHAKRA_CPU_AUTO && !host),
      .data_only = c->deps == CHAKRA_DEPS_DATA};
}

/* Where CTX's traces are: their prefix (g_free), the ranks to read (0:
 * as many as there are, at most *MAX), and the communicator groups
 * (NULL: none; g_hash_table_destroy); false and *ERR located at the key. */
static bool files_of(const struct wl_ctx *ctx, char **prefix, uint32_t *max, GHashTable **groups,
                     char **err) {
  const struct chakra_config *c = ctx->config;
  struct hw_config hw = wl_hw_of(ctx->sc);
  const struct sc_node *w = sc_map_get(ctx->sc->root, "workload");
  const struct sc_node *fn = sc_map_get(w, "files"), *gn = sc_map_get(w, "comm_groups");
  *err = NULL;
  *groups = NULL;
  if (!c->files[0]) {
    *err = sc_error_at(fn ? fn : (w ? w : ctx->sc->root), "workload.files",
                       "expected the prefix of Chakra trace files (PREFIX.0.et, ...), got none");
    return false;
  }
  if (c->ranks && !wl_check_nodes(ctx->sc, &hw, (uint64_t)c->ranks, "workload.ranks", err))
    return false;
  *max = (uint32_t)MIN(hw.net->nodes, (int64_t)UINT32_MAX);
  if (c->comm_groups[0]) {
    char *gpath = in_path_beside(gn ? gn->file : NULL, c->comm_groups);
    *groups = chakra_groups_load(gpath, *max, err);
    g_free(gpath);
    if (!*groups) return false;
  }
  *prefix = in_path_beside(fn ? fn->file : NULL, c->files);
  return true;
}

/* An error of the files (not of their content) located at workload.files. */
static void at_files(const struct wl_ctx *ctx, const char *prefix, char **err) {
  if (!*err || g_str_has_prefix(*err, prefix)) return;
  const struct sc_node *fn = sc_map_get(sc_map_get(ctx->sc->root, "workload"), "files");
  char *why = *err;
  *err = sc_error_at(fn, "workload.files", "%s", why);
  g_free(why);
}

static struct wl_program *chakra_program(const struct wl_ctx *ctx, char **err) {
  const struct chakra_config *c = ctx->config;
  char *prefix = NULL;
  uint32_t max = 0;
  GHashTable *groups = NULL;
  if (!files_of(ctx, &prefix, &max, &groups, err)) return NULL;
  struct chakra_opts o = opts_of(ctx);
  struct wl_program *p = wl_chakra_read(prefix, (uint32_t)c->ranks, max, &o, groups, err);
  if (!p) at_files(ctx, prefix, err);
  g_free(prefix);
  if (groups) g_hash_table_destroy(groups);
  return p;
}

/* What a source is opened with (chakra_src_new's argument). */
struct src_spec {
  const struct wl_ctx *ctx;
  struct chakra_opts o;
};

static void *chakra_src_new(void *arg, char **err) {
  const struct src_spec *sp = arg;
  const struct chakra_config *c = sp->ctx->config;
  char *prefix = NULL;
  uint32_t max = 0;
  GHashTable *groups = NULL;
  if (!files_of(sp->ctx, &prefix, &max, &groups, err)) return NULL;
  uint32_t n = (uint32_t)c->ranks;
  if (!n) { /* as many files as there are, as the whole reader counts them */
    char *path = NULL;
    while (n <= max) {
      g_free(path);
      path = rank_path(prefix, n);
      if (!g_file_test(path, G_FILE_TEST_EXISTS)) break;
      n++;
    }
    g_free(path);
    if (!n)
      *err = g_strdup_printf("expected Chakra trace files %s.0.et, %s.1.et, ..., got no %s.0.et",
                             prefix, prefix, prefix);
    else if (n > max)
      *err = g_strdup_printf("expected at most %u ranks (the network's nodes), got at least %u "
                             "files from %s.0.et", max, n, prefix);
  }
  struct chakra_src *x = NULL;
  if (!*err) x = chakra_src_open(prefix, n, &sp->o, groups, err); /* takes the groups */
  else if (groups) g_hash_table_destroy(groups);
  if (!x) at_files(sp->ctx, prefix, err);
  g_free(prefix);
  return x;
}

static void chakra_src_drop(void *x) { chakra_src_free(x); }

/* CTX's trace as an op source through its first pass, opened once per
 * reading of it (the policies' contexts differ in where a CPU op runs and
 * how many WGs a recorded duration spans) for all of its scenario's runs. */
static struct chakra_src *chakra_src_of(const struct wl_ctx *ctx, char **err) {
  struct src_spec sp = {.ctx = ctx, .o = opts_of(ctx)};
  char key[96];
  g_snprintf(key, sizeof key, "chakra:%u:%u:%u:%d:%d", sp.o.compute, sp.o.wgs, sp.o.dur_wgs,
             sp.o.cpu_skip, sp.o.data_only);
  *err = NULL;
  return sc_attachment(ctx->sc, key, chakra_src_new, &sp, chakra_src_drop, err);
}

/* CPU ops on the host only where the policy runs a rank's graph there. */
static bool chakra_check(const struct wl_ctx *ctx, char **err) {
  const struct chakra_config *c = ctx->config;
  if (c->cpu_ops == CHAKRA_CPU_HOST && !on(ctx, WL_ON_CPU)) {
    const struct sc_node *w = sc_map_get(ctx->sc->root, "workload");
    const struct sc_node *n = sc_map_get(w, "cpu_ops");
    *err = sc_error_at(n ? n : w, "workload.cpu_ops",
                       "expected where policy %s can run a CPU op (auto or skip: it runs a rank "
                       "from the GPU), got host", ctx->policy);
    return false;
  }
  return true;
}

/* The trace as an op source, run by the driver: streamed where it can
 * be (its collectives written out op by op as the run's library runs
 * them), else read whole (workloads/policies/stream.c). */
static bool chakra_run(const struct wl_ctx *ctx0, struct sim_result *out, char **err) {
  const struct chakra_config *c = ctx0->config;
  struct wl_ctx ctx = *ctx0;
  ctx.lin_window = (uint32_t)c->stream_window;
  struct chakra_src *x = chakra_src_of(&ctx, err);
  if (!x) return false;
  struct wl_stream_opts opts = {.window = (uint32_t)c->stream_window,
                                .whole = c->read == CHAKRA_READ_WHOLE,
                                .whole_limit = (uint64_t)c->whole_limit};
  return ctx.run_source(&ctx, &x->src, &opts, out, err);
}

const struct wl_type wl_chakra = {
    .params = &chakra_params,
    .default_policy = "gputn",
    .check = chakra_check,
    .run = chakra_run,
    .program = chakra_program,
};

/* ---- the writer ---- */

/* An attribute under construction (the writer's: every value it writes
 * lives in the node being packed). */
struct wattrs {
  ChakraEt__AttributeProto a[40];
  ChakraEt__AttributeProto *p[40];
  ChakraEt__Uint64List list;
  char pg[16];
  size_t n;
};

static ChakraEt__AttributeProto *wattr(struct wattrs *w, const char *name) {
  g_assert(w->n < G_N_ELEMENTS(w->a));
  ChakraEt__AttributeProto *a = &w->a[w->n];
  chakra_et__attribute_proto__init(a);
  a->name = (char *)name;
  w->p[w->n] = a;
  w->n++;
  return a;
}

/* Chakra's feeders read each attribute as one type (Chakra's
 * et_feeder_node.cpp): comm_size, comm_type, num_ops as int64,
 * comm_src/dst/tag as int32, tensor_size as uint64, is_cpu_op as bool. */
static void w_i64(struct wattrs *w, const char *name, int64_t v) {
  ChakraEt__AttributeProto *a = wattr(w, name);
  a->value_case = CHAKRA_ET__ATTRIBUTE_PROTO__VALUE_INT64_VAL;
  a->int64_val = v;
}

static void w_i32(struct wattrs *w, const char *name, int32_t v) {
  ChakraEt__AttributeProto *a = wattr(w, name);
  a->value_case = CHAKRA_ET__ATTRIBUTE_PROTO__VALUE_INT32_VAL;
  a->int32_val = v;
}

static void w_u64(struct wattrs *w, const char *name, uint64_t v) {
  ChakraEt__AttributeProto *a = wattr(w, name);
  a->value_case = CHAKRA_ET__ATTRIBUTE_PROTO__VALUE_UINT64_VAL;
  a->uint64_val = v;
}

static void w_bool(struct wattrs *w, const char *name, bool v) {
  ChakraEt__AttributeProto *a = wattr(w, name);
  a->value_case = CHAKRA_ET__ATTRIBUTE_PROTO__VALUE_BOOL_VAL;
  a->bool_val = v;
}

static void w_str(struct wattrs *w, const char *name, const char *v) {
  ChakraEt__AttributeProto *a = wattr(w, name);
  a->value_case = CHAKRA_ET__ATTRIBUTE_PROTO__VALUE_STRING_VAL;
  a->string_val = (char *)v;
}

/* Writes message M length-delimited to F. */
static void put_message(FILE *f, const ProtobufCMessage *m) {
  size_t len = protobuf_c_message_get_packed_size(m);
  uint8_t pre[10];
  size_t k = 0;
  uint64_t v = len;
  do {
    pre[k++] = (uint8_t)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
    v >>= 7;
  } while (v);
  uint8_t *buf = g_malloc(MAX(len, 1));
  protobuf_c_message_pack(m, buf);
  fwrite(pre, 1, k, f);
  fwrite(buf, 1, len, f);
  g_free(buf);
}


/* The node of op I of rank R (id I + 1) into N with its attributes in W
 * and dependencies in DEPS; false when P holds what Chakra cannot carry. */
static bool node_of(const struct wl_program *p, uint32_t r, size_t i, int64_t prev,
                    chakra_duration_fn duration, void *arg, ChakraEt__Node *n, struct wattrs *w,
                    GArray *deps, GArray *starts, char *name, size_t name_size, char **err) {
  const struct wl_rank *rk = &p->ranks[r];
  const struct wl_op *o = &rk->ops[i];
  chakra_et__node__init(n);
  w->n = 0;
  n->id = i + 1;
  g_array_set_size(deps, 0);
  g_array_set_size(starts, 0);
  if (rk->graph) {
    for (uint32_t d = 0; d < o->n_deps; d++) {
      const struct wl_dep *dp = &rk->deps[o->dep_first + d];
      uint64_t id = dp->op + 1;
      g_array_append_val(dp->on_start ? starts : deps, id);
    }
  } else if (prev >= 0) { /* a sequence: a chain */
    uint64_t id = (uint64_t)prev + 1;
    g_array_append_val(deps, id);
  }
  n->n_data_deps = deps->len;
  n->data_deps = (uint64_t *)(void *)deps->data;
  if (starts->len) {
    ChakraEt__AttributeProto *a = wattr(w, "trigsim_irequires");
    chakra_et__uint64_list__init(&w->list);
    w->list.n_values = starts->len;
    w->list.values = (uint64_t *)(void *)starts->data;
    a->value_case = CHAKRA_ET__ATTRIBUTE_PROTO__VALUE_UINT64_LIST;
    a->uint64_list = &w->list;
  }
  switch (o->kind) {
  case WL_COMPUTE: {
    const struct wl_kernel *k = wl_kernel_of(p, o);
    g_snprintf(name, name_size, "compute_%zu", i);
    n->type = CHAKRA_ET__NODE_TYPE__COMP_NODE;
    w_bool(w, "is_cpu_op", o->on == WL_ON_CPU);
    w_i64(w, "num_ops", (int64_t)MIN(wl_mul_sat(o->n_wgs, (uint64_t)k->flops_per_wg), (uint64_t)INT64_MAX));
    w_u64(w, "tensor_size", wl_mul_sat(o->n_wgs, (uint64_t)k->bytes_per_wg));
    w_i64(w, "trigsim_wgs", o->n_wgs);
    for (size_t a = 0; a < G_N_ELEMENTS(kattrs); a++) {
      int64_t v = kattr_get(k, &kattrs[a]);
      if (v) w_i64(w, kattrs[a].name, v);
      if (a == 1 && o->time_ps) w_i64(w, "trigsim_time_ps", o->time_ps); /* where it was */
    }
    if (duration) n->duration_micros = (uint64_t)((duration(k, o, arg) + SIM_US / 2) / SIM_US);
    break;
  }
  case WL_SEND:
  case WL_RECV: {
    bool send = o->kind == WL_SEND;
    if (o->tag > CHAKRA_MAX_TAG) {
      *err = g_strdup_printf("rank %u op %zu: expected message tags below 2^31 (Chakra's "
                             "comm_tag is an int32), got %u", r, i, o->tag);
      return false;
    }
    g_snprintf(name, name_size, "%s_%zu", send ? "send" : "recv", i);
    n->type = send ? CHAKRA_ET__NODE_TYPE__COMM_SEND_NODE : CHAKRA_ET__NODE_TYPE__COMM_RECV_NODE;
    w_bool(w, "is_cpu_op", false);
    w_i32(w, "comm_src", (int32_t)(send ? r : o->peer));
    w_i32(w, "comm_dst", (int32_t)(send ? o->peer : r));
    w_i64(w, "comm_size", o->bytes);
    w_i32(w, "comm_tag", (int32_t)o->tag);
    if (o->one_sided) w_bool(w, "trigsim_one_sided", true);
    break;
  }
  case WL_COLL: {
    const struct wl_call *c = wl_call_of(p, o);
    const struct wl_group *g = wl_group_get(p, c->group);
    uint32_t size = g ? g->n : p->n_ranks;
    g_snprintf(name, name_size, "%s_%zu", wl_coll_names[c->kind], i);
    n->type = CHAKRA_ET__NODE_TYPE__COMM_COLL_NODE;
    w_bool(w, "is_cpu_op", false);
    w_i64(w, "comm_type", coll_comm[c->kind]);
    w_i64(w, "comm_size", c->kind == WL_ALLTOALL ? o->bytes * size : o->bytes);
    if (c->group) {
      g_snprintf(w->pg, sizeof w->pg, "%u", c->group);
      w_str(w, "pg_name", w->pg);
    }
    if (c->kind == WL_BCAST || c->kind == WL_REDUCE) w_i32(w, "comm_src", (int32_t)o->peer);
    w_i64(w, "trigsim_elem", c->elem_bytes);
    w_i64(w, "trigsim_flops_per_elem", c->flops_per_elem);
    w_i64(w, "trigsim_wgs", o->n_wgs);
    if (c->algo) w_str(w, "trigsim_algorithm", wl_coll_algo_names[c->algo]);
    if (c->segment_bytes) w_i64(w, "trigsim_segment", c->segment_bytes);
    break;
  }
  case WL_QUIET:
    g_snprintf(name, name_size, "quiet_%zu", i);
    n->type = CHAKRA_ET__NODE_TYPE__METADATA_NODE;
    w_bool(w, "trigsim_quiet", true);
    break;
  default: g_assert_not_reached();
  }
  n->name = name;
  n->n_attr = w->n;
  n->attr = w->p;
  return true;
}

/* PyTorch's "## process_group:init ##" node (id 0) listing P's groups,
 * pg_name their number (ASTRA-sim: Workload::issue_pytorch_pg_metadata). */
static void put_groups(FILE *f, const struct wl_program *p) {
  GString *s = g_string_new("['[");
  for (uint32_t g = 1; g <= wl_groups(p); g++) {
    const struct wl_group *grp = wl_group_get(p, g);
    g_string_append_printf(s, "%s{\"pg_name\": \"%u\", \"ranks\": [", g > 1 ? ", " : "", g);
    for (uint32_t k = 0; k < grp->n; k++) g_string_append_printf(s, "%s%u", k ? ", " : "", grp->ranks[k]);
    g_string_append_printf(s, "], \"group_size\": %u}", grp->n);
  }
  g_string_append(s, "]']");
  ChakraEt__IOInfo in;
  chakra_et__ioinfo__init(&in);
  in.values = s->str;
  ChakraEt__Node n;
  chakra_et__node__init(&n);
  n.id = 0;
  n.name = "## process_group:init ##";
  n.type = CHAKRA_ET__NODE_TYPE__METADATA_NODE;
  n.inputs = &in;
  put_message(f, &n.base);
  g_string_free(s, TRUE);
}

bool wl_chakra_write(const struct wl_program *p, chakra_duration_fn duration, void *arg,
                     const char *prefix, char **err) {
  struct outfile *of = g_new0(struct outfile, p->n_ranks);
  GArray *deps = g_array_new(FALSE, FALSE, sizeof(uint64_t));
  GArray *starts = g_array_new(FALSE, FALSE, sizeof(uint64_t));
  uint32_t opened = 0;
  bool ok = true;
  for (uint32_t r = 0; r < p->n_ranks && ok; r++) {
    char *path = rank_path(prefix, r);
    ok = of_open(&of[r], path, err);
    g_free(path);
    if (!ok) break;
    opened++;
    ChakraEt__GlobalMetadata m;
    chakra_et__global_metadata__init(&m);
    m.version = "1.0.0";
    put_message(of[r].f, &m.base);
    if (wl_groups(p)) put_groups(of[r].f, p);
    const struct wl_rank *rk = &p->ranks[r];
    int64_t prev = -1;
    for (size_t i = 0; i < rk->n_ops && ok; i++) {
      uint8_t k = rk->ops[i].kind;
      if (k == WL_SYNC) continue; /* a sequence's chain orders everything already */
      g_assert(k != WL_LOOP && k != WL_END);
      ChakraEt__Node n;
      struct wattrs w;
      char name[96];
      ok = node_of(p, r, i, prev, duration, arg, &n, &w, deps, starts, name, sizeof name, err);
      if (ok) put_message(of[r].f, &n.base);
      prev = (int64_t)i;
    }
  }
  for (uint32_t r = 0; r < opened; r++) {
    if (ok) ok = of_commit(&of[r], err);
    else of_abort(&of[r]);
  }
  g_array_free(deps, TRUE);
  g_array_free(starts, TRUE);
  g_free(of);
  return ok;
}
