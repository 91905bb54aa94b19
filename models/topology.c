/* Network topologies (see topology.h): the "network" parameter group, shape
 * checks, builders and arithmetic routing. Reference values (100 ns links
 * and switches, 100 Gbps, star): GPU-TN paper, Table 2. */
#include "topology.h"

#include <glib.h>
#include <stddef.h>
#include <stdio.h>

#define PAR_CONFIG struct net_config
static const struct par_decl net_decls[] = {
    PAR(topology, PAR_ENUM, "star", NULL, NULL, "star|fat-tree|torus|dragonfly",
      "how switches join the nodes (star: one switch, as in the GPU-TN paper)"),
    PAR(nodes, PAR_INT, "2", "1", "16777216", "nodes (NICs) attached to the network"),
    PAR(link_latency, PAR_TIME, "100ns", "0ps", "1s", "latency of every link, each direction"),
    PAR(link_bandwidth, PAR_BANDWIDTH, "100Gbps", "1Mbps", "100Tbps",
      "bandwidth of every link, each direction (full duplex)"),
    PAR(switch_latency, PAR_TIME, "100ns", "0ps", "1s",
      "time from a packet's arrival (head or tail, per switching) to its output start"),
    PAR(switching, PAR_ENUM, "cut-through", NULL, NULL, "cut-through|store-and-forward",
      "cut-through forwards the head (HPC switches do), store-and-forward the whole packet"),
    PAR(mtu, PAR_SIZE, "4KiB", "1B", "1GiB", "payload bytes per packet; messages are cut into these"),
    PAR(header_bytes, PAR_SIZE, "64B", "0B", "64KiB",
      "wire bytes per packet besides payload (between InfiniBand's 42B and RoCEv2's 78B)"),
    PAR(fat_tree_k, PAR_INT, "16", "2", "4096",
      "fat-tree: arity k (switches of k down and k up ports)"),
    PAR(fat_tree_levels, PAR_INT, "0", "0", "24",
      "fat-tree: levels n (k^n nodes); 0: the fewest that hold network.nodes"),
    PAR(torus_x, PAR_INT, "4", "1", "16777216", "torus: routers along x (one node per router)"),
    PAR(torus_y, PAR_INT, "4", "1", "16777216", "torus: routers along y"),
    PAR(torus_z, PAR_INT, "1", "1", "16777216", "torus: routers along z (1: a 2D torus)"),
    PAR(dragonfly_a, PAR_INT, "4", "1", "4096", "dragonfly: routers per group (all-to-all inside)"),
    PAR(dragonfly_p, PAR_INT, "2", "1", "4096", "dragonfly: nodes per router"),
    PAR(dragonfly_h, PAR_INT, "2", "1", "4096",
      "dragonfly: global links per router; groups = a*h + 1, one link per pair"),
    PAR(gpus_per_node, PAR_INT, "1", "1", "1024",
      "GPUs (endpoints) per physical node: i and j share one when i/G == j/G and talk over "
      "its crossbar; nodes must be a multiple (1: every endpoint alone, no intra fabric)"),
    PAR(intra_latency, PAR_TIME, "200ns", "0ps", "1s",
      "intra-node: latency of each link between a GPU's NIC and its node's crossbar "
      "(an NVLink hop: SerDes + link layer, a few hundred ns)"),
    PAR(intra_bandwidth, PAR_BANDWIDTH, "2400Gbps", "1Mbps", "100Tbps",
      "intra-node: bandwidth per GPU, each direction, at its sending port and at the "
      "crossbar's port into it (NVLink 3 on A100: 12 links x 25 GB/s = 300 GB/s)"),
    PAR(intra_switch_latency, PAR_TIME, "100ns", "0ps", "1s",
      "intra-node: crossbar (NVSwitch) latency, arrival (head or tail, per switching) to "
      "output start"),
    PAR(flow_control, PAR_ENUM, "credit", NULL, NULL, "credit|none",
      "credit: lossless link-level flow control, a packet leaves only when the next switch's "
      "input buffer has room for it (InfiniBand's credits, IBA vol. 1 Sec. 7.9; models/flow.h); "
      "none: unbounded buffers that never push back"),
    PAR(buffer_bytes, PAR_SIZE, "64KiB", "1B", "1GiB",
      "a network switch's input buffer per port and virtual lane, with credit flow control; a "
      "smaller one than mtu + header_bytes holds one packet, as IBA requires (estimate: 16 packets of a 4 KiB MTU, more than the credit loop "
      "of a short link at 100-200 Gbps needs, 2 L + W + S ~ 0.6 us, so that an uncongested "
      "link runs at full rate; vendors do not publish per-port figures)"),
    PAR(intra_buffer_bytes, PAR_SIZE, "512KiB", "1B", "1GiB",
      "intra-node: the crossbar's (NVSwitch's) input buffer per port, with credit flow control "
      "(estimate, not published: above the credit loop of a 300 GB/s NVLink port with 200 ns "
      "hops, 2 x 200 + 100 + 14 ns ~ 0.51 us = 154 KB, so that an uncongested port runs at full "
      "rate, the rule buffer_bytes follows)"),
};
#undef PAR_CONFIG

/* nodes counts endpoints (NICs); they fill physical nodes of G (0, in a
 * config built by hand without the defaults, counts as 1). */
static bool node_multiple(const struct net_config *c, char **err) {
  if (c->gpus_per_node <= 1 || c->nodes % c->gpus_per_node == 0) return true;
  *err = g_strdup_printf("network.nodes: expected a multiple of network.gpus_per_node "
                         "(%" G_GINT64_FORMAT "), got %" G_GINT64_FORMAT,
                         c->gpus_per_node, c->nodes);
  return false;
}

static bool net_check(const void *config, char **err); /* below topo_shape */

const struct par_group net_params = {
    .name = "network",
    .doc = "links, switches and the topology that joins the nodes' NICs; the intra-node fabric",
    .decls = net_decls,
    .n_decls = PAR_COUNT(net_decls),
    .config_size = sizeof(struct net_config),
    .check = net_check,
};

/* Larger networks are refused: a switch costs a component, its ports and
 * its state (about 250 B plus 160 B per port: the engine's port and the
 * switch's output, input count, queues and credit; more while packets wait). */
#define TOPO_MAX_SWITCHES (1u << 22)

struct topo {
  struct net_config cfg;
  uint32_t nodes, n_switches, ports; /* ports per switch */
  /* fat-tree */
  uint32_t k, levels, per_level; /* per_level = k^(levels-1) */
  uint64_t kpow[26];             /* k^i, i <= levels (saturated) */
  /* torus */
  uint32_t dim[3];
  /* dragonfly */
  uint32_t a, p, h, g;
  struct sw_fabric fab;
  bool built;
  /* intra-node crossbars: one per physical node of G endpoints */
  uint32_t gpn, n_intra;
  struct net_config intra_cfg; /* cfg with the intra link and switch numbers */
  struct sw_fabric intra;
  bool intra_built;
};

/* ---- routing ---- */

static int ft_route(const struct topo *t, uint32_t sw, uint32_t dst) {
  uint32_t l = sw / t->per_level, s = sw % t->per_level;
  uint32_t digit = (uint32_t)((dst / t->kpow[l]) % t->k);
  /* Below this switch: the nodes whose digits above l match s's from l up. */
  if (dst / t->kpow[l + 1] == s / t->kpow[l]) return (int)digit;
  return (int)(t->k + digit); /* d-mod-k: up port = destination digit l */
}

/* Ports of a torus router: 0 the node, 1 + 2d the + direction of dimension
 * d, 2 + 2d the - direction. */
static int torus_route(const struct topo *t, uint32_t r, uint32_t dst) {
  for (int d = 0; d < 3; d++) {
    uint32_t D = t->dim[d];
    uint32_t div = d == 0 ? 1 : d == 1 ? t->dim[0] : t->dim[0] * t->dim[1];
    uint32_t cur = r / div % D, to = dst / div % D;
    uint32_t delta = (to + D - cur) % D;
    if (delta) return delta <= D - delta ? 1 + 2 * d : 2 + 2 * d; /* ties go + */
  }
  return 0;
}

/* Ports of a dragonfly router: 0..p-1 its nodes, then a-1 local ports (to
 * the other routers of the group in order), then h global ports. Global link
 * j (0..a*h-1) of group G is on router j/h, port j%h, and leads to group
 * (G + j + 1) mod g, where it is that group's link a*h-1-j. */
static int df_local_port(const struct topo *t, uint32_t r, uint32_t to) {
  return (int)(t->p + (to < r ? to : to - 1));
}

static int df_route(const struct topo *t, uint32_t R, uint32_t dst) {
  uint32_t Rd = dst / t->p;
  if (R == Rd) return (int)(dst % t->p);
  uint32_t G = R / t->a, r = R % t->a, Gd = Rd / t->a, rd = Rd % t->a;
  if (G == Gd) return df_local_port(t, r, rd);
  uint32_t j = (Gd + t->g - G - 1) % t->g, rg = j / t->h;
  if (r == rg) return (int)(t->p + t->a - 1 + j % t->h);
  return df_local_port(t, r, rg);
}

int topo_route(const struct topo *t, uint32_t sw, uint32_t dst_node) {
  g_assert(sw < t->n_switches && dst_node < t->nodes);
  switch (t->cfg.topology) {
  case NET_STAR: return (int)dst_node;
  case NET_FAT_TREE: return ft_route(t, sw, dst_node);
  case NET_TORUS: return torus_route(t, sw, dst_node);
  default: return df_route(t, sw, dst_node);
  }
}

/* Lanes (switch.h). Torus: the + and - links of dimension d are ports 1 + 2d
 * and 2 + 2d at both ends; a packet stays on its lane while it goes on in
 * one dimension, starts on lane 0 in a new one, and moves to lane 1 on the
 * wrap-around link (the dateline: from coordinate D-1 to 0 going +, from 0
 * to D-1 going -). */
static int torus_vl(const struct topo *t, uint32_t r, int in_port, int in_vl, int out) {
  if (out == 0) return 0;
  int d = (out - 1) / 2, d_in = in_port > 0 ? (in_port - 1) / 2 : -1;
  uint32_t div = d == 0 ? 1 : d == 1 ? t->dim[0] : t->dim[0] * t->dim[1];
  uint32_t D = t->dim[d], cur = r / div % D;
  bool wrap = out % 2 == 1 ? cur == D - 1 : cur == 0;
  return wrap ? 1 : d == d_in ? in_vl : 0;
}

/* Dragonfly: lane 1 on every hop after the global one (a packet that came
 * in by a global port, or on lane 1 already). */
static int df_vl(const struct topo *t, int in_port, int in_vl, int out) {
  if ((uint32_t)out < t->p) return 0;
  return in_vl == 1 || (uint32_t)in_port >= t->p + t->a - 1 ? 1 : 0;
}

int topo_route_vl(const struct topo *t, uint32_t sw, int in_port, int in_vl, uint32_t dst_node,
                  int *out_vl) {
  int out = topo_route(t, sw, dst_node);
  switch (t->cfg.topology) {
  case NET_TORUS: *out_vl = torus_vl(t, sw, in_port, in_vl, out); break;
  case NET_DRAGONFLY: *out_vl = df_vl(t, in_port, in_vl, out); break;
  default: *out_vl = 0; break;
  }
  return out;
}

uint32_t topo_lanes(const struct topo *t) {
  return t->cfg.topology == NET_TORUS || t->cfg.topology == NET_DRAGONFLY ? 2 : 1;
}

static int route_cb(const void *ctx, uint32_t sw, int in_port, int in_vl, uint32_t dst,
                    int *out_vl) {
  return topo_route_vl(ctx, sw, in_port, in_vl, dst, out_vl);
}

/* Crossbar K serves endpoints K*G .. K*G + G-1, endpoint K*G + p on port p. */
static int intra_route_cb(const void *ctx, uint32_t sw, int in_port, int in_vl, uint32_t dst,
                          int *out_vl) {
  const struct topo *t = ctx;
  g_assert(dst / t->gpn == sw);
  *out_vl = 0;
  return (int)(dst % t->gpn);
}

int topo_hops(const struct topo *t, uint32_t src, uint32_t dst) {
  g_assert(src < t->nodes && dst < t->nodes);
  switch (t->cfg.topology) {
  case NET_STAR: return 1;
  case NET_FAT_TREE: {
    /* Up to the nearest common ancestor at level L and down: 2L + 1. */
    uint32_t L = 0;
    while (src / t->kpow[L + 1] != dst / t->kpow[L + 1]) L++;
    return (int)(2 * L + 1);
  }
  case NET_TORUS: {
    int hops = 1;
    uint32_t div = 1;
    for (int d = 0; d < 3; d++) {
      uint32_t D = t->dim[d], delta = (dst / div % D + D - src / div % D) % D;
      hops += (int)(delta < D - delta ? delta : D - delta);
      div *= D;
    }
    return hops;
  }
  default: {
    uint32_t Rs = src / t->p, Rd = dst / t->p;
    if (Rs == Rd) return 1;
    uint32_t Gs = Rs / t->a, Gd = Rd / t->a;
    if (Gs == Gd) return 2;
    uint32_t j = (Gd + t->g - Gs - 1) % t->g;
    uint32_t out_router = j / t->h, in_router = (t->a * t->h - 1 - j) / t->h;
    return 2 + (Rs % t->a != out_router) + (Rd % t->a != in_router);
  }
  }
}

/* ---- shapes ---- */

static uint64_t sat_mul(uint64_t a, uint64_t b) {
  return (b && a > UINT64_MAX / 4 / b) ? UINT64_MAX / 4 : a * b;
}

static bool too_many(const struct topo *t, uint64_t capacity, const char *shape, char **err) {
  if ((uint64_t)t->cfg.nodes <= capacity) return false;
  *err = g_strdup_printf("network.nodes: expected at most %" G_GUINT64_FORMAT
                         " for %s, got %" G_GINT64_FORMAT,
                         capacity, shape, t->cfg.nodes);
  return true;
}

static bool shape_fat_tree(struct topo *t, char **err) {
  const struct net_config *c = &t->cfg;
  if (c->fat_tree_k < 2 || c->fat_tree_k > (SIM_PORT_SELF - 1) / 2) {
    *err = g_strdup_printf("network.fat_tree_k: expected 2 to %d, got %" G_GINT64_FORMAT,
                           (SIM_PORT_SELF - 1) / 2, c->fat_tree_k);
    return false;
  }
  t->k = (uint32_t)c->fat_tree_k;
  int64_t n = c->fat_tree_levels;
  if (n == 0) { /* the fewest levels that hold the nodes */
    uint64_t cap = t->k;
    for (n = 1; cap < (uint64_t)c->nodes && n < 24; n++) cap = sat_mul(cap, t->k);
  }
  if (n < 1 || n > 24) {
    *err = g_strdup_printf(
        "network.fat_tree_levels: expected 0 (automatic) to 24, got %" G_GINT64_FORMAT, n);
    return false;
  }
  t->levels = (uint32_t)n;
  t->kpow[0] = 1;
  for (uint32_t i = 1; i <= t->levels; i++) t->kpow[i] = sat_mul(t->kpow[i - 1], t->k);
  uint64_t switches = sat_mul(t->levels, t->kpow[t->levels - 1]);
  if (switches > TOPO_MAX_SWITCHES) {
    *err = g_strdup_printf("network.fat_tree_levels: a %u-ary %u-tree has %" G_GUINT64_FORMAT
                           " switches; expected at most %u (fewer levels, or a smaller fat_tree_k)",
                           t->k, t->levels, switches, TOPO_MAX_SWITCHES);
    return false;
  }
  char shape[96];
  snprintf(shape, sizeof shape,
           "a fat-tree with fat_tree_k %u and fat_tree_levels %u (k^levels nodes)", t->k,
           t->levels);
  if (too_many(t, t->kpow[t->levels], shape, err)) return false;
  t->per_level = (uint32_t)t->kpow[t->levels - 1];
  t->n_switches = (uint32_t)switches;
  t->ports = 2 * t->k;
  return true;
}

static bool shape_torus(struct topo *t, char **err) {
  const struct net_config *c = &t->cfg;
  const int64_t d[3] = {c->torus_x, c->torus_y, c->torus_z};
  static const char *const key[3] = {"torus_x", "torus_y", "torus_z"};
  uint64_t routers = 1;
  for (int i = 0; i < 3; i++) {
    if (d[i] < 1) {
      *err =
          g_strdup_printf("network.%s: expected at least 1, got %" G_GINT64_FORMAT, key[i], d[i]);
      return false;
    }
    routers = sat_mul(routers, (uint64_t)d[i]);
  }
  if (routers > TOPO_MAX_SWITCHES) {
    *err = g_strdup_printf("network.torus_x: a torus of %" G_GINT64_FORMAT "x%" G_GINT64_FORMAT
                           "x%" G_GINT64_FORMAT " has %" G_GUINT64_FORMAT
                           " routers; expected at most %u",
                           d[0], d[1], d[2], routers, TOPO_MAX_SWITCHES);
    return false;
  }
  char shape[128];
  snprintf(shape, sizeof shape,
           "a %" G_GINT64_FORMAT "x%" G_GINT64_FORMAT "x%" G_GINT64_FORMAT
           " torus (torus_x*torus_y*torus_z, one node per router)",
           d[0], d[1], d[2]);
  if (too_many(t, routers, shape, err)) return false;
  for (int i = 0; i < 3; i++) t->dim[i] = (uint32_t)d[i];
  t->n_switches = (uint32_t)routers;
  t->ports = 7;
  return true;
}

static bool shape_dragonfly(struct topo *t, char **err) {
  const struct net_config *c = &t->cfg;
  if (c->dragonfly_a < 1 || c->dragonfly_p < 1 || c->dragonfly_h < 1 ||
      c->dragonfly_p + c->dragonfly_a - 1 + c->dragonfly_h >= SIM_PORT_SELF) {
    *err = g_strdup_printf(
        "network.dragonfly_a: expected a, p, h >= 1 and p + a - 1 + h < %d ports "
        "per router, got a %" G_GINT64_FORMAT ", p %" G_GINT64_FORMAT ", h %" G_GINT64_FORMAT,
        SIM_PORT_SELF, c->dragonfly_a, c->dragonfly_p, c->dragonfly_h);
    return false;
  }
  uint64_t a = (uint64_t)c->dragonfly_a, p = (uint64_t)c->dragonfly_p, h = (uint64_t)c->dragonfly_h;
  uint64_t g = a * h + 1, routers = a * g;
  if (routers > TOPO_MAX_SWITCHES) {
    *err = g_strdup_printf("network.dragonfly_a: a dragonfly with dragonfly_a %" G_GUINT64_FORMAT
                           " and dragonfly_h %" G_GUINT64_FORMAT " has %" G_GUINT64_FORMAT
                           " routers; expected at most %u",
                           a, h, routers, TOPO_MAX_SWITCHES);
    return false;
  }
  char shape[160];
  snprintf(shape, sizeof shape,
           "a dragonfly with dragonfly_a %" G_GUINT64_FORMAT ", dragonfly_p %" G_GUINT64_FORMAT
           ", dragonfly_h %" G_GUINT64_FORMAT " (a*p*(a*h+1) nodes)",
           a, p, h);
  if (too_many(t, routers * p, shape, err)) return false;
  t->a = (uint32_t)a;
  t->p = (uint32_t)p;
  t->h = (uint32_t)h;
  t->g = (uint32_t)g;
  t->n_switches = (uint32_t)routers;
  t->ports = (uint32_t)(p + a - 1 + h);
  return true;
}

/* Checks CFG and fills T's shape (switches, ports, per-topology sizes);
 * allocates nothing. */
static bool topo_shape(struct topo *t, const struct net_config *cfg, char **err) {
  t->cfg = *cfg;
  bool ok = true;
  if (cfg->nodes < 1 || cfg->nodes > 16777216) {
    *err =
        g_strdup_printf("network.nodes: expected 1 to 16777216, got %" G_GINT64_FORMAT, cfg->nodes);
    ok = false;
  } else if (cfg->mtu < 1 || cfg->link_bandwidth < 1 || cfg->header_bytes < 0 ||
             cfg->link_latency < 0 || cfg->switch_latency < 0 ||
             (cfg->gpus_per_node > 1 && (cfg->intra_bandwidth < 1 || cfg->intra_latency < 0 ||
                                         cfg->intra_switch_latency < 0))) {
    *err = g_strdup("network: expected mtu >= 1B, link_bandwidth and intra_bandwidth > 0, "
                    "header_bytes and latencies >= 0");
    ok = false;
  } else if (cfg->gpus_per_node < 0 || cfg->gpus_per_node > 1024) {
    *err = g_strdup_printf("network.gpus_per_node: expected 1 to 1024, got %" G_GINT64_FORMAT,
                           cfg->gpus_per_node);
    ok = false;
  } else if (!node_multiple(cfg, err)) {
    ok = false;
  } else {
    switch (cfg->topology) {
    case NET_STAR: {
      ok = !too_many(t, SIM_PORT_SELF - 1, "a star (the ports of one switch)", err);
      t->n_switches = 1;
      t->ports = (uint32_t)cfg->nodes;
      break;
    }
    case NET_FAT_TREE: ok = shape_fat_tree(t, err); break;
    case NET_TORUS: ok = shape_torus(t, err); break;
    case NET_DRAGONFLY: ok = shape_dragonfly(t, err); break;
    default:
      *err = g_strdup_printf(
          "network.topology: expected one of star, fat-tree, torus, dragonfly, got %d",
          cfg->topology);
      ok = false;
    }
  }
  return ok;
}

/* The whole shape, at bind time: node counts a topology cannot hold are
 * input errors that `validate` reports. */
static bool net_check(const void *config, char **err) {
  struct topo t = {0};
  return topo_shape(&t, config, err);
}

struct topo *topo_new(const struct net_config *cfg, char **err) {
  struct topo *t = g_new0(struct topo, 1);
  bool ok = topo_shape(t, cfg, err);
  if (!ok) {
    g_free(t);
    return NULL;
  }
  t->nodes = (uint32_t)cfg->nodes;
  sw_fabric_init(&t->fab, &t->cfg, route_cb, t, t->ports, net_buffer(&t->cfg, false),
                 (int)topo_lanes(t));
  t->gpn = cfg->gpus_per_node > 1 ? (uint32_t)cfg->gpus_per_node : 1;
  if (t->gpn > 1) {
    t->n_intra = t->nodes / t->gpn;
    t->intra_cfg = t->cfg;
    t->intra_cfg.link_latency = cfg->intra_latency;
    t->intra_cfg.link_bandwidth = cfg->intra_bandwidth;
    t->intra_cfg.switch_latency = cfg->intra_switch_latency;
    sw_fabric_init(&t->intra, &t->intra_cfg, intra_route_cb, t, t->gpn,
                   net_buffer(&t->cfg, true), 1);
  }
  return t;
}

void topo_free(struct topo *t) { g_free(t); }

/* ---- building ---- */

/* The switch and port node N hangs from. */
static void attach_point(const struct topo *t, uint32_t n, uint32_t *sw, int *port) {
  switch (t->cfg.topology) {
  case NET_STAR: *sw = 0, *port = (int)n; break;
  case NET_FAT_TREE: *sw = n / t->k, *port = (int)(n % t->k); break;
  case NET_TORUS: *sw = n, *port = 0; break;
  default: *sw = n / t->p, *port = (int)(n % t->p); break;
  }
}

static bool join(struct sim_engine *e, const struct topo *t, uint32_t a, int pa, uint32_t b, int pb,
                 char **err) {
  return sim_connect(sim_comp_get(e, t->fab.first_id + a), pa, sim_comp_get(e, t->fab.first_id + b),
                     pb, t->cfg.link_latency, err);
}

static bool link_fat_tree(const struct topo *t, struct sim_engine *e, char **err) {
  /* Switch (l, s) up port k + j joins (l + 1, s with digit l set to j) on
   * down port digit l of s. */
  for (uint32_t l = 0; l + 1 < t->levels; l++)
    for (uint32_t s = 0; s < t->per_level; s++) {
      uint32_t kl = (uint32_t)t->kpow[l], digit = s / kl % t->k;
      for (uint32_t j = 0; j < t->k; j++) {
        uint32_t up = s - digit * kl + j * kl;
        if (!join(e, t, l * t->per_level + s, (int)(t->k + j), (l + 1) * t->per_level + up,
                  (int)digit, err))
          return false;
      }
    }
  return true;
}

static bool link_torus(const struct topo *t, struct sim_engine *e, char **err) {
  uint32_t div = 1;
  for (int d = 0; d < 3; d++) {
    uint32_t D = t->dim[d];
    if (D > 1)
      for (uint32_t r = 0; r < t->n_switches; r++) {
        uint32_t c = r / div % D, next = r - c * div + (c + 1) % D * div;
        if (!join(e, t, r, 1 + 2 * d, next, 2 + 2 * d, err)) return false;
      }
    div *= D;
  }
  return true;
}

static bool link_dragonfly(const struct topo *t, struct sim_engine *e, char **err) {
  for (uint32_t G = 0; G < t->g; G++) {
    uint32_t base = G * t->a;
    for (uint32_t r = 0; r < t->a; r++)
      for (uint32_t q = r + 1; q < t->a; q++)
        if (!join(e, t, base + r, df_local_port(t, r, q), base + q, df_local_port(t, q, r), err))
          return false;
    for (uint32_t j = 0; j < t->a * t->h; j++) {
      uint32_t G2 = (G + j + 1) % t->g, j2 = t->a * t->h - 1 - j;
      if (G2 < G) continue; /* made from the other side */
      if (!join(e, t, base + j / t->h, (int)(t->p + t->a - 1 + j % t->h), G2 * t->a + j2 / t->h,
                (int)(t->p + t->a - 1 + j2 % t->h), err))
        return false;
    }
  }
  return true;
}

bool topo_build(struct topo *t, struct sim_engine *e, struct sim_comp *const *endpoints,
                int endpoint_port, char **err) {
  g_assert(!t->built);
  t->built = true;
  for (uint32_t i = 0; i < t->n_switches; i++) {
    char name[32];
    snprintf(name, sizeof name, "net.sw%u", i);
    sw_add(e, &t->fab, name, t->ports);
  }
  bool ok = true;
  switch (t->cfg.topology) {
  case NET_FAT_TREE: ok = link_fat_tree(t, e, err); break;
  case NET_TORUS: ok = link_torus(t, e, err); break;
  case NET_DRAGONFLY: ok = link_dragonfly(t, e, err); break;
  default: break;
  }
  for (uint32_t n = 0; ok && n < t->nodes; n++) {
    uint32_t sw;
    int port;
    attach_point(t, n, &sw, &port);
    ok = sim_connect(endpoints[n], endpoint_port, sim_comp_get(e, t->fab.first_id + sw), port,
                     t->cfg.link_latency, err);
  }
  return ok;
}

bool topo_build_intra(struct topo *t, struct sim_engine *e, struct sim_comp *const *endpoints,
                      int endpoint_port, char **err) {
  g_assert(!t->intra_built);
  t->intra_built = true;
  if (t->gpn <= 1) return true;
  for (uint32_t k = 0; k < t->n_intra; k++) {
    char name[32];
    snprintf(name, sizeof name, "nvl.sw%u", k);
    sw_add(e, &t->intra, name, t->gpn);
  }
  for (uint32_t n = 0; n < t->nodes; n++)
    if (!sim_connect(endpoints[n], endpoint_port, sim_comp_get(e, t->intra.first_id + n / t->gpn),
                     (int)(n % t->gpn), t->cfg.intra_latency, err))
      return false;
  return true;
}

uint32_t topo_intra_switch_count(const struct topo *t) { return t->n_intra; }

const struct net_config *topo_config(const struct topo *t) { return &t->cfg; }
uint32_t topo_nodes(const struct topo *t) { return t->nodes; }
uint32_t topo_switch_count(const struct topo *t) { return t->n_switches; }
uint32_t topo_first_switch_id(const struct topo *t) {
  g_assert(t->built);
  return t->fab.first_id;
}
