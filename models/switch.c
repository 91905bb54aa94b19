/* Network switches (see switch.h): route by destination node, queue per
 * input, lane and output, arbitrate each output round-robin across inputs
 * once the packet is ready (switch_latency), serialize per net.h's delivery
 * rule, with credit flow control toward the next switch (flow.h). Reference
 * latency: GPU-TN paper, Table 2; queues and arbiter: Mellanox's IB model
 * (ib_model ibuf.h, vlarb.h). */
#include "switch.h"

#include "flow.h"
#include "phase.h"
#include "pool.h"
#include "proto.h"
#include "rrset.h"
#include "trace.h"

#include <glib.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

/* Self events; data = the output, or a packet's pool index | gen << 32. */
enum {
  EV_READY = 1, /* a packet is ready for its output */
  EV_FREE,      /* the output's serialization ends and packets wait */
  EV_WAKE,      /* credit may be back for a blocked output */
};
#define LATE_BIT ((uint64_t)1 << 63) /* switch_latency 0: deferred once (switch.h) */

/* A packet from its arrival until it leaves. */
struct sw_pkt {
  uint64_t h;      /* its payload slot */
  sim_time ready;
  uint32_t next;   /* the next in its queue (index + 1; 0: none) */
  uint32_t seq;    /* its index among the packets received on its input (flow.h) */
  uint32_t gen;    /* bumped when the slot is freed: a ready event names a live packet */
  int32_t wire;
  uint16_t in, out;
  uint8_t vl_in, vl_out;
  bool held;       /* its sender was told it did not leave at its ready time */
  bool readied;    /* its ready event has run */
};

/* One port: its output (arbiter, queues, credit toward the next hop) and
 * the count of packets received on it as an input. */
struct sw_port {
  sim_time busy_until;
  sim_time free_at, wake_at; /* the pending free and wake events (-1: none) */
  sim_time blocked_since;    /* a ready packet waits for credit since (-1: none) */
  struct rr_set voq;         /* keyed by input * n_vls + lane */
  struct flow_out flow;
  uint32_t rr;               /* the queue key served last (UINT32_MAX: none) */
  uint32_t rx;
  int32_t track;             /* trace track + 1 (0: not made yet) */
};

struct sw_state {
  struct sw_stats st;
  struct pool pkts;      /* struct sw_pkt */
  struct sw_port port[]; /* fabric->max_ports of them */
};

static const struct sw_fabric *fabric_of(const struct sim_comp *c) { return c->config; }

static void sw_init(struct sim_comp *c) {
  const struct sw_fabric *f = fabric_of(c);
  struct sw_state *s = c->state;
  g_assert(c->n_ports <= f->max_ports);
  pool_init(&s->pkts, sizeof(struct sw_pkt));
  for (uint32_t i = 0; i < c->n_ports; i++) {
    struct sw_port *p = &s->port[i];
    p->free_at = p->wake_at = p->blocked_since = -1;
    p->rr = UINT32_MAX;
    /* Credits only toward a switch of this fabric: a NIC drains at link rate. */
    uint32_t peer = c->ports[i].peer;
    bool to_switch = c->ports[i].connected && peer >= f->first_id &&
                     peer < f->first_id + f->n_switches;
    flow_init(&p->flow, to_switch ? f->buffer : 0);
  }
}

static int port_track(struct sim_comp *c, struct sw_port *p, int port) {
  if (p->track == 0) {
    char suffix[16];
    snprintf(suffix, sizeof suffix, "p%d", port);
    p->track = sim_track_sub(c, suffix) + 1;
  }
  return p->track - 1;
}

static struct sw_pkt *pkt_at(struct sw_state *s, uint32_t i) { return pool_at(&s->pkts, struct sw_pkt, i); }

static void pkt_free(struct sw_state *s, uint32_t i) {
  pkt_at(s, i)->gen++;
  pool_give(&s->pkts, i);
}

/* Whether a queue of output P has a head ready by NOW. */
static bool head_ready(struct sw_state *s, const struct sw_port *p, sim_time now) {
  for (uint32_t k = 0; k < p->voq.n; k++)
    if (pkt_at(s, p->voq.f[k].head - 1)->ready <= now) return true;
  return false;
}

/* The head of queue F of output OUT leaves now. */
static void grant(struct sim_comp *c, int out, struct rr_fifo *f) {
  const struct sw_fabric *fab = fabric_of(c);
  const struct net_config *net = fab->net;
  struct sw_state *s = c->state;
  struct sim_engine *e = c->eng;
  struct sw_port *p = &s->port[out];
  sim_time now = sim_now(e);
  uint32_t i = f->head - 1;
  struct sw_pkt k = *pkt_at(s, i);
  p->rr = f->key;
  f->head = k.next;
  if (!f->head) {
    f->tail = 0;
    rr_drop(&p->voq, f);
  }
  pkt_free(s, i);

  sim_time ser = net_ser_time(k.wire, net->link_bandwidth);
  bool saf = net->switching == NET_STORE_FORWARD;
  p->busy_until = now + ser;
  s->st.packets++;
  s->st.bytes += (uint64_t)k.wire;
  if (now - k.ready > s->st.max_queue_ps) s->st.max_queue_ps = now - k.ready;
  if (p->blocked_since >= 0) {
    s->st.credit_stall_ps += now - p->blocked_since;
    p->blocked_since = -1;
  }
  if (G_UNLIKELY(c->traced)) trace_span(sim_trace(e), port_track(c, p, out), "link", now, now + ser);
  flow_spend(&p->flow, k.vl_out, k.wire,
             flow_back_at(now, ser, c->ports[out].latency_ps, net->switch_latency, saf));
  ((struct pmsg *)sim_payload(e, k.h))->vl = k.vl_out;
  sim_send(c, out, saf ? ser : 0, PK_PACKET, k.h);
  if (k.held) { /* its credit goes back when its tail has left (flow.h) */
    g_assert(ser >= 1);
    sim_send(c, k.in, ser - 1, PK_LINK_CREDIT, flow_credit_data(k.wire, k.vl_in));
  }
}

/* Output OUT takes, when free, the first ready head after the one it served
 * last that fits its lane's credit (switch.h); then makes sure an event
 * comes when it can take the next: its free event while ready packets wait,
 * a wake when credit may be back while they are blocked. */
static void arbitrate(struct sim_comp *c, int out) {
  struct sw_state *s = c->state;
  struct sw_port *p = &s->port[out];
  sim_time now = sim_now(c->eng);
  bool blocked = false;
  /* One packet per call but for empty ones (no header), which leave the
   * output free at the same instant. */
  while (p->busy_until <= now && p->voq.n) {
    uint32_t n = p->voq.n, i0 = rr_first_after(&p->voq, p->rr);
    struct rr_fifo *pick = NULL;
    blocked = false;
    for (uint32_t k = 0; k < n && !pick; k++) {
      struct rr_fifo *f = &p->voq.f[(i0 + k) % n];
      const struct sw_pkt *h = pkt_at(s, f->head - 1);
      if (h->ready > now) continue;
      if (flow_room(&p->flow, h->vl_out, now) < h->wire) blocked = true;
      else pick = f;
    }
    if (!pick) break;
    /* Whose event grants it, so that the critical path does not depend on
     * the order of one instant's events (tests/test_ties.c): a packet
     * ready at this instant, its own ready event; one that waited, the
     * output's free event when that is due now. Either runs at this
     * instant and picks the same. */
    const struct sw_pkt *h = pkt_at(s, pick->head - 1);
    if (h->ready == now ? !h->readied : p->free_at == now) break;
    grant(c, out, pick);
  }
  if (p->busy_until <= now) {
    if (blocked) {
      sim_time at = flow_blocked(&p->flow, now, &p->blocked_since, &p->wake_at);
      if (at >= 0) sim_schedule(c, at - now, EV_WAKE, (uint64_t)out);
    }
    return;
  }
  if (p->free_at != p->busy_until && head_ready(s, p, now)) {
    p->free_at = p->busy_until;
    sim_schedule(c, p->busy_until - now, EV_FREE, (uint64_t)out);
  }
}

static void arrive(struct sim_comp *c, const struct sim_event *ev) {
  const struct sw_fabric *f = fabric_of(c);
  struct sw_state *s = c->state;
  struct sim_engine *e = c->eng;
  const struct pmsg *m = sim_payload(e, ev->data);
  g_assert(m->kind == PK_PACKET);
  int in = ev->port, vl_out = 0;
  int out = f->route(f->route_ctx, c->id - f->first_id, in, m->vl, m->dst_node, &vl_out);
  g_assert(out >= 0 && (uint32_t)out < c->n_ports && c->ports[out].connected);
  g_assert(vl_out >= 0 && vl_out < f->n_vls && m->vl < f->n_vls);
  sim_time latency = f->net->switch_latency;
  uint32_t i = pool_take(&s->pkts);
  struct sw_pkt *k = pkt_at(s, i);
  *k = (struct sw_pkt){.h = ev->data, .ready = sim_now(e) + latency,
                       .seq = s->port[in].rx++, .gen = k->gen,
                       .wire = (int32_t)sw_wire_bytes(f->net, m->bytes), .in = (uint16_t)in,
                       .out = (uint16_t)out, .vl_in = m->vl, .vl_out = (uint8_t)vl_out};
  struct rr_fifo *q = rr_get(&s->port[out].voq, (uint32_t)in * f->n_vls + m->vl);
  if (q->tail) pkt_at(s, q->tail - 1)->next = i + 1;
  else q->head = i + 1;
  q->tail = i + 1;
  sim_schedule(c, latency, EV_READY, (uint64_t)k->gen << 32 | i);
}

/* A packet's ready event: its output arbitrates; a packet still waiting
 * then tells its sender (flow.h). */
static void ready(struct sim_comp *c, uint64_t data) {
  const struct sw_fabric *f = fabric_of(c);
  struct sw_state *s = c->state;
  uint32_t i = (uint32_t)data, gen = (uint32_t)(data >> 32);
  if (pkt_at(s, i)->gen != gen) return; /* it left already, at this instant */
  pkt_at(s, i)->readied = true;
  int out = pkt_at(s, i)->out;
  arbitrate(c, out);
  struct sw_pkt *k = pkt_at(s, i);
  if (k->gen != gen) return;
  s->st.waited++;
  if (f->buffer > 0 && k->wire > 0) { /* an empty packet (no header) holds no credit */
    k->held = true;
    sim_send(c, k->in, 0, PK_LINK_HOLD, k->seq);
  }
}

static void sw_handle(struct sim_comp *c, const struct sim_event *ev) {
  const struct sw_fabric *f = fabric_of(c);
  struct sw_state *s = c->state;
  if (ev->port != SIM_PORT_SELF) {
    struct sw_port *p = &s->port[ev->port];
    switch (ev->kind) {
    case PK_PACKET: arrive(c, ev); break;
    case PK_LINK_HOLD: flow_hold(&p->flow, (uint32_t)ev->data); break;
    case PK_LINK_CREDIT:
      flow_credit(&p->flow, flow_credit_vl(ev->data), flow_credit_bytes(ev->data),
                  sim_now(c->eng) + 1);
      sim_schedule(c, 1, EV_WAKE, ev->port);
      break;
    default: g_error("%s: unexpected event kind %u on port %u", c->name, ev->kind, ev->port);
    }
    return;
  }
  if (ev->kind == EV_READY) {
    ready(c, ev->data);
    return;
  }
  if (f->net->switch_latency == 0 && !(ev->data & LATE_BIT)) {
    sim_schedule(c, 0, ev->kind, ev->data | LATE_BIT);
    return;
  }
  int out = (int)(ev->data & ~LATE_BIT);
  struct sw_port *p = &s->port[out];
  sim_time now = sim_now(c->eng);
  if (ev->kind == EV_FREE && p->free_at == now) p->free_at = -1;
  else if (ev->kind == EV_WAKE && p->wake_at == now) p->wake_at = -1;
  arbitrate(c, out);
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
    [SW_OUT_WAITED] = OUT_F(waited, UNIT_NONE, SIM_OUT_SOME,
                            "packets this switch did not forward at their ready time (output "
                            "busy or out of credit; each switch while at most "
                            G_STRINGIFY(SW_REPORT_EACH_MAX) ")"),
    [SW_OUT_CREDIT_STALL] = OUT_F(credit_stall, UNIT_TIME, SIM_OUT_SOME,
                                  "time this switch's outputs had a ready packet and no credit "
                                  "for it, summed over outputs (each switch while at most "
                                  G_STRINGIFY(SW_REPORT_EACH_MAX) ")"),
    [SW_OUT_TOTAL_PACKETS] = OUT_F(switches.packets, UNIT_NONE, SIM_OUT_TOTAL | SIM_OUT_SOME,
                                   "packets forwarded by all switches of the fabric (switch 0)"),
    [SW_OUT_TOTAL_BYTES] = OUT_F(switches.bytes, UNIT_SIZE, SIM_OUT_TOTAL | SIM_OUT_SOME,
                                 "wire bytes forwarded by all switches (switch 0)"),
    [SW_OUT_TOTAL_MAX_QUEUE_DELAY] = OUT_F(switches.max_queue_delay, UNIT_TIME,
                                           SIM_OUT_TOTAL | SIM_OUT_SOME,
                                           "the longest a packet waited for an output port of "
                                           "any switch (switch 0)"),
    [SW_OUT_TOTAL_WAITED] = OUT_F(switches.waited, UNIT_NONE, SIM_OUT_TOTAL | SIM_OUT_SOME,
                                  "packets not forwarded at their ready time, all switches "
                                  "(switch 0)"),
    [SW_OUT_TOTAL_CREDIT_STALL] = OUT_F(switches.credit_stall, UNIT_TIME,
                                        SIM_OUT_TOTAL | SIM_OUT_SOME,
                                        "time outputs waited for credit with a packet ready, "
                                        "summed over all switches (switch 0; 0 without "
                                        "network.flow_control credit)"),
    [SW_OUT_TOTAL_MAX_PACKETS] = OUT_F(switches.max_packets, UNIT_NONE,
                                       SIM_OUT_TOTAL | SIM_OUT_SOME,
                                       "packets forwarded by the busiest switch (switch 0)"),
};
SIM_OUT_GROUP(sw_outputs, "switch",
              "net.sw<i>.KEY, by kind net.sw.KEY; totals net.switches.KEY (intra-node "
              "crossbars: nvl.sw<i>, nvl.switches)", sw_outs, SW_OUT_COUNT);

static void sw_destroy(struct sim_comp *c) {
  struct sw_state *s = c->state;
  for (uint32_t i = 0; i < c->n_ports; i++) {
    rr_release(&s->port[i].voq);
    flow_release(&s->port[i].flow);
  }
  pool_release(&s->pkts);
}

/* This switch's counters, a blocked output's stall counted up to now. */
static void stats_now(const struct sim_comp *c, struct sw_stats *out) {
  const struct sw_state *s = c->state;
  *out = s->st;
  sim_time now = sim_now(c->eng);
  for (uint32_t i = 0; i < c->n_ports; i++)
    if (s->port[i].blocked_since >= 0) out->credit_stall_ps += now - s->port[i].blocked_since;
}

static void sw_finish(struct sim_comp *c, struct sim_report *r) {
  const struct sw_fabric *f = fabric_of(c);
  struct sw_stats st;
  stats_now(c, &st);
  if (f->n_switches <= SW_REPORT_EACH_MAX) {
    sim_out_int(r, c, SW_OUT_PACKETS, (int64_t)st.packets);
    sim_out_int(r, c, SW_OUT_BYTES, (int64_t)st.bytes);
    sim_out_int(r, c, SW_OUT_MAX_QUEUE_DELAY, st.max_queue_ps);
    sim_out_int(r, c, SW_OUT_WAITED, (int64_t)st.waited);
    sim_out_int(r, c, SW_OUT_CREDIT_STALL, st.credit_stall_ps);
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
    tot.waited += one.waited;
    tot.credit_stall_ps += one.credit_stall_ps;
    if (one.max_queue_ps > tot.max_queue_ps) tot.max_queue_ps = one.max_queue_ps;
    if (one.packets > busiest) busiest = one.packets;
  }
  sim_out_int(r, c, SW_OUT_TOTAL_PACKETS, (int64_t)tot.packets);
  sim_out_int(r, c, SW_OUT_TOTAL_BYTES, (int64_t)tot.bytes);
  sim_out_int(r, c, SW_OUT_TOTAL_MAX_QUEUE_DELAY, tot.max_queue_ps);
  sim_out_int(r, c, SW_OUT_TOTAL_WAITED, (int64_t)tot.waited);
  sim_out_int(r, c, SW_OUT_TOTAL_CREDIT_STALL, tot.credit_stall_ps);
  sim_out_int(r, c, SW_OUT_TOTAL_MAX_PACKETS, (int64_t)busiest);
}

/* Fetching ahead (sim_type.prefetch): a ready event's packet record, then
 * its output and that output's queues; a free or wake event's output, then
 * its queues and their first head. */
static void sw_prefetch(const struct sim_comp *c, const struct sim_event *ev, int stage) {
  if (ev->port != SIM_PORT_SELF) return;
  const struct sw_state *s = c->state;
  uint32_t out;
  if (ev->kind == EV_READY) {
    uint32_t i = (uint32_t)ev->data;
    if (!s->pkts.items || i >= s->pkts.items->len) return;
    const struct sw_pkt *k = &g_array_index(s->pkts.items, struct sw_pkt, i);
    if (stage == 1) {
      __builtin_prefetch(k);
      return;
    }
    out = k->out;
  } else {
    out = (uint32_t)(ev->data & ~LATE_BIT);
  }
  if (out >= c->n_ports) return;
  const struct sw_port *p = &s->port[out];
  if (stage == 1) {
    __builtin_prefetch(p);
    return;
  }
  if (p->voq.f) __builtin_prefetch(p->voq.f);
  if (ev->kind != EV_READY && p->voq.n && s->pkts.items && p->voq.f[0].head >= 1 &&
      p->voq.f[0].head <= s->pkts.items->len)
    __builtin_prefetch(&g_array_index(s->pkts.items, struct sw_pkt, p->voq.f[0].head - 1));
}

void sw_fabric_init(struct sw_fabric *f, const struct net_config *net, sw_route_fn route,
                    const void *ctx, uint32_t max_ports, int64_t buffer, int n_vls) {
  g_assert(max_ports >= 1 && max_ports < SIM_PORT_SELF);
  g_assert(buffer >= 0 && n_vls >= 1 && n_vls <= FLOW_MAX_VL);
  *f = (struct sw_fabric){
      .type = {.name = "switch",
               .doc = "a network switch: routing, switch latency, input buffers with credits, "
                      "round-robin output arbiters",
               .state_size = sizeof(struct sw_state) + (size_t)max_ports * sizeof(struct sw_port),
               .init = sw_init,
               .handle = sw_handle,
               .outputs = &sw_outputs,
               .finish = sw_finish,
               .destroy = sw_destroy,
               .port_payloads = true,
               .prefetch = sw_prefetch,
               .cp_cat = CP_WIRE,
               .cp_link = CP_WIRE},
      .net = net,
      .route = route,
      .route_ctx = ctx,
      .max_ports = max_ports,
      .buffer = buffer,
      .n_vls = (uint8_t)n_vls,
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

bool sw_is_switch(const struct sim_comp *c) { return c->type->handle == sw_handle; }

void sw_stats(const struct sim_comp *c, struct sw_stats *out) {
  g_assert(sw_is_switch(c));
  stats_now(c, out);
}
