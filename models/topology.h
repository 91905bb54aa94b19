/* Network topologies: the "network" parameters and builders that lay out
 * switches and links for star (one switch, the GPU-TN setup), k-ary n-tree
 * fat-tree (Petrini & Vanneschi 1997, d-mod-k routing), 2D/3D torus
 * (dimension-order routing) and dragonfly (Kim, Dally, Scott & Abts 2008,
 * minimal local-global-local routing), and the intra-node crossbars of
 * nodes of several GPUs (net.h). Routes are computed arithmetically: no
 * table grows with the number of nodes. */
#ifndef MODELS_TOPOLOGY_H
#define MODELS_TOPOLOGY_H

#include <stdbool.h>
#include <stdint.h>

#include "engine.h"
#include "net.h"
#include "param.h"
#include "switch.h"

/* Group "network", binding struct net_config (net.h). */
extern const struct par_group net_params;

struct topo;

/* Checks the shape CFG describes (nodes within the topology's capacity,
 * port counts, sizes) and returns a topology, or NULL and *ERR (g_free)
 * naming the parameter: "network.nodes: expected at most ..., got ...".
 * CFG is copied. Free with topo_free, after the engine's last use of the
 * switches (sim_finish included): they borrow it as their config. */
struct topo *topo_new(const struct net_config *cfg, char **err);
void topo_free(struct topo *t);

/* Adds the switches to E (named "net.sw<i>", so that their trace process is
 * "net"), links them (network.link_latency), and links ENDPOINTS[i] (node i,
 * created by the caller; topo_nodes of them) on its port ENDPOINT_PORT to
 * its switch. False and *ERR (g_free) when a link cannot be made. Once per
 * topology. */
bool topo_build(struct topo *t, struct sim_engine *e, struct sim_comp *const *endpoints,
                int endpoint_port, char **err);

/* With network.gpus_per_node G > 1: adds one crossbar per physical node (G
 * ports, named "nvl.sw<k>", trace process "nvl"; network.intra_switch_latency)
 * and links ENDPOINTS[i] on its port ENDPOINT_PORT to port i % G of crossbar
 * i / G (network.intra_latency; intra_bandwidth is paid at each sending
 * port, see net.h). Does nothing with G = 1. Once per topology, after
 * topo_build. */
bool topo_build_intra(struct topo *t, struct sim_engine *e, struct sim_comp *const *endpoints,
                      int endpoint_port, char **err);
/* Crossbars topo_build_intra adds: network.nodes / G, or 0 with G = 1. */
uint32_t topo_intra_switch_count(const struct topo *t);

/* The output port of switch SW (0 .. topo_switch_count - 1) for a packet to
 * DST_NODE. */
int topo_route(const struct topo *t, uint32_t sw, uint32_t dst_node);

/* The same, for a packet that came in on IN_PORT on lane IN_VL: the lane it
 * leaves on in *OUT_VL (switch.h "Lanes"). */
int topo_route_vl(const struct topo *t, uint32_t sw, int in_port, int in_vl, uint32_t dst_node,
                  int *out_vl);
/* Lanes the routes of T use: 2 on a torus or dragonfly, else 1. */
uint32_t topo_lanes(const struct topo *t);

/* Switches on the path from node SRC to node DST (1 when SRC == DST: the
 * packet turns around in its first switch). */
int topo_hops(const struct topo *t, uint32_t src, uint32_t dst);

const struct net_config *topo_config(const struct topo *t);
uint32_t topo_nodes(const struct topo *t);
uint32_t topo_switch_count(const struct topo *t);
/* Component id of switch 0 after topo_build; switch i is FIRST + i. */
uint32_t topo_first_switch_id(const struct topo *t);

#endif
