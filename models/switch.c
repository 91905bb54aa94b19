/* Network switches (see switch.h): route by destination node, wait
 * switch_latency, then serialize on the output port per net.h's delivery
 * rule. Reference latency: GPU-TN paper, Table 2. */
#include "switch.h"

#include "phase.h"
#include "proto.h"
#include "trace.h"

#include <glib.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One output port. track is the trace track + 1 (0: not made yet). */
struct sw_port {
  sim_time busy_until;
  int32_t track;
};

struct sw_state {
  struct sw_stats st;
#ifdef SIM_TIE_SHUFFLE
  GArray *pend; /* struct sw_pend: packets waiting for their ready time */
#endif
  struct sw_port port[]; /* fabric->max_ports of them */
};

static const struct sw_fabric *fabric_of(const struct sim_comp *c) { return c->config; }

static void sw_init(struct sim_comp *c) {
  const struct sw_fabric *f = fabric_of(c);
  g_assert(c->n_ports <= f->max_ports);
}

static int port_track(struct sim_comp *c, struct sw_port *p, int port) {
  if (p->track == 0) {
    char suffix[16];
    snprintf(suffix, sizeof suffix, "p%d", port);
    p->track = sim_track_sub(c, suffix) + 1;
  }
  return p->track - 1;
}

/* Serves packet DATA (event KIND), which is ready for output OUT at READY
 * (>= now): out start = max(READY, busy_until[out]), per net.h. */
static void sw_serve(struct sim_comp *c, int out, sim_time ready, uint16_t kind, uint64_t data) {
  const struct sw_fabric *f = fabric_of(c);
  struct sw_state *s = c->state;
  struct sim_engine *e = c->eng;
  const struct pmsg *m = sim_payload(e, data);
  const struct net_config *net = f->net;
  sim_time ser;
  int64_t wire = sw_wire_bytes(net, m->bytes);
  struct sw_port *p = &s->port[out];
  struct net_egress q = {.busy_until = p->busy_until, .bw_bps = net->link_bandwidth};
  sim_time delay = ready - sim_now(e) + net_egress_send(&q, ready, wire, net->switching, &ser);
  p->busy_until = q.busy_until;
  sim_time start = q.busy_until - ser;

  s->st.packets++;
  s->st.bytes += (uint64_t)wire;
  if (start - ready > s->st.max_queue_ps) s->st.max_queue_ps = start - ready;
  if (G_UNLIKELY(c->traced))
    trace_span(sim_trace(e), port_track(c, p, out), "link", start, start + ser);

  sim_send(c, out, delay, kind, data);
}

#ifdef SIM_TIE_SHUFFLE
/* The tie experiment (sim/engine.c, tools/bench/README.md), with
 * TRIGSIM_TIE_ARBITRATE set: an output port takes the packets that became
 * ready at one instant by input port (then arrival order), not in the order
 * their events ran; each waits for its ready time in a self event. */
struct sw_pend {
  sim_time ready;
  uint64_t seq; /* arrival order on one input port */
  uint64_t data;
  int32_t out;
  uint16_t in, kind;
  bool live;
};

static int pend_cmp(const void *a, const void *b) {
  const struct sw_pend *x = *(const struct sw_pend *const *)a, *y = *(const struct sw_pend *const *)b;
  if (x->in != y->in) return x->in < y->in ? -1 : 1;
  return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static void sw_arbitrate(struct sim_comp *c, uint32_t i) {
  struct sw_state *s = c->state;
  sim_time now = sim_now(c->eng);
  struct sw_pend *all = (struct sw_pend *)s->pend->data;
  if (all[i].live) {
    GPtrArray *due = g_ptr_array_new();
    for (guint k = 0; k < s->pend->len; k++)
      if (all[k].live && all[k].ready == now && all[k].out == all[i].out) g_ptr_array_add(due, &all[k]);
    qsort(due->pdata, due->len, sizeof(gpointer), pend_cmp);
    for (guint k = 0; k < due->len; k++) {
      struct sw_pend *d = due->pdata[k];
      d->live = false;
      sw_serve(c, d->out, now, d->kind, d->data);
    }
    g_ptr_array_free(due, TRUE);
  }
  all[i].data = UINT64_MAX; /* free: its event has run */
}
#endif

static void sw_handle(struct sim_comp *c, const struct sim_event *ev) {
  const struct sw_fabric *f = fabric_of(c);
  struct sim_engine *e = c->eng;
#ifdef SIM_TIE_SHUFFLE
  struct sw_state *s = c->state;
  if (ev->port == SIM_PORT_SELF) {
    sw_arbitrate(c, (uint32_t)ev->data);
    return;
  }
#endif
  const struct pmsg *m = sim_payload(e, ev->data);
  g_assert(ev->port != SIM_PORT_SELF && m->kind == PK_PACKET);

  uint32_t index = c->id - f->first_id;
  int out = f->route(f->route_ctx, index, m->dst_node);
  g_assert(out >= 0 && (uint32_t)out < c->n_ports && c->ports[out].connected);
  sim_time latency = f->net->switch_latency;
#ifdef SIM_TIE_SHUFFLE
  if (latency > 0 && getenv("TRIGSIM_TIE_ARBITRATE")) {
    if (!s->pend) s->pend = g_array_new(FALSE, TRUE, sizeof(struct sw_pend));
    guint i = 0;
    while (i < s->pend->len && g_array_index(s->pend, struct sw_pend, i).data != UINT64_MAX) i++;
    if (i == s->pend->len) g_array_set_size(s->pend, i + 1);
    g_array_index(s->pend, struct sw_pend, i) = (struct sw_pend){
        .ready = sim_now(e) + latency, .seq = sim_now_seq(e), .data = ev->data, .out = out,
        .in = ev->port, .kind = ev->kind, .live = true};
    sim_schedule(c, latency, 1, i);
    return;
  }
#endif
  sw_serve(c, out, sim_now(e) + latency, ev->kind, ev->data);
}

const struct sim_out_decl sw_outs[] = {
    [SW_OUT_PACKETS] = OUT_F(packets, UNIT_NONE, SIM_OUT_SOME,
                             "packets this switch forwarded (each switch while the fabric has at "
                             "most " G_STRINGIFY(SW_REPORT_EACH_MAX) ")"),
    [SW_OUT_BYTES] = OUT_F(bytes, UNIT_SIZE, SIM_OUT_SOME,
                           "wire bytes this switch forwarded (each switch while at most "
                           G_STRINGIFY(SW_REPORT_EACH_MAX) ")"),
    [SW_OUT_MAX_QUEUE_DELAY] = OUT_F(max_queue_delay, UNIT_TIME, SIM_OUT_SOME,
                                     "the longest a packet waited for an output port of this "
                                     "switch (each switch while at most " G_STRINGIFY(SW_REPORT_EACH_MAX) ")"),
    [SW_OUT_TOTAL_PACKETS] = OUT_F(switches.packets, UNIT_NONE, SIM_OUT_TOTAL | SIM_OUT_SOME,
                                   "packets forwarded by all switches of the fabric (switch 0)"),
    [SW_OUT_TOTAL_BYTES] = OUT_F(switches.bytes, UNIT_SIZE, SIM_OUT_TOTAL | SIM_OUT_SOME,
                                 "wire bytes forwarded by all switches (switch 0)"),
    [SW_OUT_TOTAL_MAX_QUEUE_DELAY] = OUT_F(switches.max_queue_delay, UNIT_TIME,
                                           SIM_OUT_TOTAL | SIM_OUT_SOME,
                                           "the longest a packet waited for an output port of "
                                           "any switch (switch 0)"),
    [SW_OUT_TOTAL_MAX_PACKETS] = OUT_F(switches.max_packets, UNIT_NONE,
                                       SIM_OUT_TOTAL | SIM_OUT_SOME,
                                       "packets forwarded by the busiest switch (switch 0)"),
};
SIM_OUT_GROUP(sw_outputs, "switch",
              "net.sw<i>.KEY, by kind net.sw.KEY; totals net.switches.KEY (intra-node "
              "crossbars: nvl.sw<i>, nvl.switches)", sw_outs, SW_OUT_COUNT);

#ifdef SIM_TIE_SHUFFLE
static void sw_destroy(struct sim_comp *c) {
  struct sw_state *s = c->state;
  if (s->pend) g_array_free(s->pend, TRUE);
}
#else
#define sw_destroy NULL
#endif

static void sw_finish(struct sim_comp *c, struct sim_report *r) {
  const struct sw_fabric *f = fabric_of(c);
  const struct sw_state *s = c->state;
  if (f->n_switches <= SW_REPORT_EACH_MAX) {
    sim_out_int(r, c, SW_OUT_PACKETS, (int64_t)s->st.packets);
    sim_out_int(r, c, SW_OUT_BYTES, (int64_t)s->st.bytes);
    sim_out_int(r, c, SW_OUT_MAX_QUEUE_DELAY, s->st.max_queue_ps);
  }
  if (c->id != f->first_id) return;
  /* Switch 0 sums the fabric after the run, like phold_totals. */
  struct sw_stats tot = {0};
  uint64_t busiest = 0;
  for (uint32_t i = 0; i < f->n_switches; i++) {
    struct sw_stats one;
    sw_stats(sim_comp_get(c->eng, f->first_id + i), &one);
    tot.packets += one.packets;
    tot.bytes += one.bytes;
    if (one.max_queue_ps > tot.max_queue_ps) tot.max_queue_ps = one.max_queue_ps;
    if (one.packets > busiest) busiest = one.packets;
  }
  sim_out_int(r, c, SW_OUT_TOTAL_PACKETS, (int64_t)tot.packets);
  sim_out_int(r, c, SW_OUT_TOTAL_BYTES, (int64_t)tot.bytes);
  sim_out_int(r, c, SW_OUT_TOTAL_MAX_QUEUE_DELAY, tot.max_queue_ps);
  sim_out_int(r, c, SW_OUT_TOTAL_MAX_PACKETS, (int64_t)busiest);
}

void sw_fabric_init(struct sw_fabric *f, const struct net_config *net, sw_route_fn route,
                    const void *ctx, uint32_t max_ports) {
  g_assert(max_ports >= 1 && max_ports < SIM_PORT_SELF);
  *f = (struct sw_fabric){
      .type = {.name = "switch",
               .doc = "a network switch: routing, switch latency, per-output-port serialization",
               .state_size = sizeof(struct sw_state) + (size_t)max_ports * sizeof(struct sw_port),
               .init = sw_init,
               .handle = sw_handle,
               .outputs = &sw_outputs,
               .finish = sw_finish,
               .destroy = sw_destroy,
               .port_payloads = true,
               .cp_cat = CP_WIRE,
               .cp_link = CP_WIRE},
      .net = net,
      .route = route,
      .route_ctx = ctx,
      .max_ports = max_ports,
  };
}

struct sim_comp *sw_add(struct sim_engine *e, struct sw_fabric *f, const char *name,
                        uint32_t n_ports) {
  g_assert(n_ports <= f->max_ports);
  struct sim_comp *c = sim_add_ports(e, &f->type, name, f, n_ports);
  if (f->n_switches == 0) f->first_id = c->id;
  g_assert(c->id == f->first_id + f->n_switches);
  f->n_switches++;
  return c;
}

void sw_stats(const struct sim_comp *c, struct sw_stats *out) {
  g_assert(c->type->handle == sw_handle);
  *out = ((const struct sw_state *)c->state)->st;
}
