/* The NIC (see nic.h): command queue, GPU-TN trigger FIFO and trigger list
 * (SC17 Sec. 3), doorbells (GDS), DMA through the bus, MTU segmentation and
 * injection per net.h, one-sided put/get with completion flags. */
#include "nic.h"

#include <glib.h>
#include <string.h>

#include "flow.h"
#include "phase.h"
#include "pool.h"
#include "rrset.h"
#include "stats.h"
#include "switch.h"
#include "trace.h"

/* Self events. */
enum {
  EV_CMD_DONE = 1,  /* the head command's cmd_cost is paid */
  EV_CMD_TAIL,      /* ... and its overflow_lookup */
  EV_MATCH_DONE,    /* the head trigger store's match_latency is paid */
  EV_MATCH_TAIL,    /* ... and its overflow_lookup */
  EV_GET_SERVE,     /* a get request is complete at the target: data = operation */
  EV_ACK,           /* a put asking for an ACK is all here: data = source << 32 | message */
  EV_TX,            /* a port's serialization ends and packets wait: data = port index */
  EV_TX_WAKE,       /* credit may be back for a blocked port: data = port index */
};

#define NIC_FLAG_BYTES 8 /* a flag write moves one 64-bit word */

/* A growable FIFO of fixed-size items (no allocation per item). */
struct nic_ring {
  char *buf;
  size_t elem, cap, head, len;
};

static void *ring_at(struct nic_ring *r, size_t i) {
  return r->buf + ((r->head + i) % r->cap) * r->elem;
}

static void ring_push(struct nic_ring *r, const void *item) {
  if (r->len == r->cap) {
    size_t cap = r->cap ? 2 * r->cap : 16;
    char *buf = g_malloc(cap * r->elem);
    for (size_t i = 0; i < r->len; i++) memcpy(buf + i * r->elem, ring_at(r, i), r->elem);
    g_free(r->buf);
    r->buf = buf;
    r->cap = cap;
    r->head = 0;
  }
  memcpy(ring_at(r, r->len), item, r->elem);
  r->len++;
}

static void ring_pop(struct nic_ring *r) {
  g_assert(r->len > 0);
  r->head = (r->head + 1) % r->cap;
  r->len--;
}

/* An entry of the command queue. */
struct nic_qitem {
  bool doorbell;
  uint32_t cmd_id; /* doorbell */
  uint64_t op;     /* command: its operation record */
};

enum nic_role { ROLE_PUT, ROLE_GET, ROLE_SERVE /* target side of a get */ };

/* An operation: a command from its arrival until its last packet has left
 * (put, get served) or its data has arrived (get). */
struct nic_opr {
  struct nic_cmd cmd;
  uint8_t role;     /* enum nic_role */
  bool store;       /* an NVLink store (nic.h) */
  bool live;
  bool held;        /* a triggered operation the host posted, not yet fired */
  bool flow;        /* on a trace: a span opened its message's flow (fire, get request) */
  uint32_t peer;    /* ROLE_SERVE: the initiator */
  uint32_t rx;      /* ROLE_GET: reply packets received */
  uint64_t msg_id;
  sim_time dma_start;
};

/* Packets received so far of a multi-packet message; the key comes first
 * (g_int64_hash). */
struct nic_rx {
  int64_t key; /* src_node << 32 | message id */
  uint32_t got;
};

/* A trigger FIFO entry: COUNT stores of TAG posted together by one WG (its
 * work-items, at work-item granularity); matched one after the other for
 * match_latency each, the whole batch's time charged once (PAID). */
struct trig_item {
  uint32_t tag, count;
  bool paid;
  uint64_t flow; /* on a trace: the store's flow (trig_flow), 0: none */
};

/* A message (or a header-only request or ACK) waiting in its send queue
 * from when its first packet could go until its last has gone. */
struct nic_job {
  uint32_t dst, msg_id;
  uint32_t next;        /* the next job of its queue (index + 1; 0: none) */
  uint32_t seq, count;  /* the next packet to send; packets */
  uint8_t type;         /* enum nic_ptype */
  bool store, ack;
  bool flow;            /* on a trace: its flow was opened before its tx span */
  int64_t bytes;        /* the message's payload bytes (get request: asked for) */
  sim_time first;       /* when its first packet started */
  struct pflag remote;  /* NIC_PT_PUT: the target's flag */
  struct pflag local;   /* NIC_PT_PUT without ack: the send buffer is reusable */
};

/* One port's sending side (nic.h "Sending"). */
struct nic_tx {
  struct net_egress eg;   /* busy_until and the port's bandwidth */
  struct flow_out flow;   /* credit at the switch it feeds (flow.h) */
  struct rr_set q;        /* send queues holding jobs, keyed by connection */
  uint32_t rr, cont;      /* the queue served last, and its packets in a row */
  sim_time tx_at, wake_at, blocked_since; /* pending EV_TX, EV_TX_WAKE; -1: none */
  int port;
  bool direct;            /* fifo order, no credits: packets reserved at once, as before */
};

struct nic_state {
  const struct net_config *net;
  const struct nodeprog *prog;
  uint32_t node;
  struct tl_list *tl;
  struct nic_tx tx[2];    /* the "net" port (link_bandwidth), the "nvl" port (intra_bandwidth) */
  struct pool jobs;       /* struct nic_job */
  struct nic_ring cmdq;  /* struct nic_qitem */
  struct nic_ring trigq; /* struct trig_item */
  bool cmd_busy, cmd_stalled, trig_busy, trig_stalled;
  sim_time cmd_start, trig_start, cmd_stall_since, trig_stall_since; /* since: -1 = not stalled */
  struct tl_result cmd_pending, trig_pending; /* waiting out overflow_lookup */
  GArray *ops;      /* struct nic_opr; handle = index + 1 */
  GArray *ops_free; /* uint32_t indices */
  GHashTable *posted;    /* cmd_id -> operation handle */
  GHashTable *doorbells; /* cmd_id -> doorbells waiting for their post */
  GHashTable *awaiting;  /* message id -> operation awaiting its target's reply (a
                            get's data, the ACK of a put that asks for one) */
  GHashTable *rx;        /* struct nic_rx */
  uint64_t next_msg;
  uint64_t held;    /* the host's triggered operations here, not yet fired */
  bool full;        /* the host was told the NIC holds nic.triggered_ops of them */
  bool tracks_made;
  int tr_main, tr_trig, tr_dma, tr_tx, tr_rx;
  bool released;
  /* Statistics. */
  struct stat_tw in_use;
  uint64_t commands, doorbells_rung, registrations, puts, gets_started, dma_reads, nvl_stores;
  uint64_t triggers_stored, triggers_matched, triggers_allocated, ops_fired;
  uint64_t overflow_lookups, stalls, packets_sent, packets_received;
  sim_time credit_stall;  /* time a port had a packet to send and no credit for it */
  int64_t bytes_sent, bytes_received, payload_sent, payload_received;
  int64_t nvl_bytes_sent; /* of bytes_sent, through the nvl port */
  sim_time stall_time;
  uint64_t overflowed_final, left_final;
};

#define PAR_CONFIG struct nic_config
static const struct par_decl nic_decls[] = {
    PAR(cmd_cost, PAR_TIME, "100ns", "0ps", "1ms", NULL,
      "processing of one posted command or doorbell by the NIC's command engine "
      "(~10 M commands/s, a Portals-4-class NIC's message rate)"),
    PAR(trigger_entries, PAR_INT, "16", "1", "4096", NULL,
      "active on-NIC trigger entries, matched associatively (16: GPU-TN Sec. 3.3)"),
    PAR(trigger_full, PAR_ENUM, "spill", NULL, NULL, "spill|stall",
      "trigger list full: spill new entries to host memory, or stall the store/registration"),
    PAR(overflow_lookup, PAR_TIME, "500ns", "0ps", "1ms", NULL,
      "extra cost of a lookup that searches or writes the host-memory overflow "
      "(one read round trip across PCIe, ~0.5us)"),
    PAR(match_latency, PAR_TIME, "10ns", "0ps", "1ms", NULL,
      "pop one trigger store from the FIFO and match its tag (a CAM lookup and an "
      "increment: a few NIC cycles)"),
    PAR(nvl_direct, PAR_BOOL, "false", NULL, NULL, NULL,
      "same-node (nvl port) data is read from and written to GPU memory by the NVLink "
      "engines: no DMA read or memory write across the bus (commands and flags still cross it)"),
    PAR(triggered_ops, PAR_INT, "4096", "1", "16777216", NULL,
      "the host's triggered operations the NIC holds (queued, or registered and not fired) "
      "before the host's next registration waits for one to fire (Portals 4's "
      "max_triggered_ops; estimate, not in the paper: above the 2789 any shipped scenario "
      "holds, so that none waits)"),
    PAR(send_order, PAR_ENUM, "round-robin", NULL, NULL, "round-robin|fifo",
      "how a port serves its send queues: round-robin over the connections with something to "
      "send, send_chunk packets at a time (RDMA NICs schedule their active queue pairs in "
      "turn: Mellanox's IB model, ib_model gen.h); fifo: messages one after another in the "
      "order they are ready to go (the model before issue 29, for comparison)"),
    PAR(send_chunk, PAR_INT, "1", "1", "1048576", NULL,
      "packets a send queue sends in a row before the port turns to the next queue (ib_model "
      "gen.h maxContPkts; 1: interleave at packet granularity)"),
    PAR(queue_pairs, PAR_INT, "0", "0", "16777216", NULL,
      "send queues per port: 0, one per destination (a connection each, as RC queue pairs); "
      "k > 0, destination d uses queue d mod k"),
};
#undef PAR_CONFIG

const struct par_group nic_params = {
    .name = "nic",
    .doc = "NIC: command queue, GPU-TN trigger list, DMA and packet injection",
    .decls = nic_decls,
    .n_decls = PAR_COUNT(nic_decls),
    .config_size = sizeof(struct nic_config),
};

static const char *const nic_ports[] = {"bus", "net", "nvl"};
static const uint8_t nic_port_link[] = {CP_BUS, CP_WIRE, CP_WIRE}; /* critical path */

/* ---- helpers ---- */

static void nic_tracks(struct sim_comp *c) {
  struct nic_state *s = c->state;
  if (s->tracks_made) return;
  s->tracks_made = true;
  s->tr_main = sim_track(c);
  s->tr_trig = sim_track_sub(c, "trigger");
  s->tr_dma = sim_track_sub(c, "dma");
  s->tr_tx = sim_track_sub(c, "tx");
  s->tr_rx = sim_track_sub(c, "rx");
}

enum { TR_MAIN, TR_TRIG, TR_DMA, TR_TX, TR_RX };

/* C's track WHICH (TR_*), made on first use. */
static int nic_track(struct sim_comp *c, int which) {
  nic_tracks(c);
  struct nic_state *s = c->state;
  int tracks[] = {s->tr_main, s->tr_trig, s->tr_dma, s->tr_tx, s->tr_rx};
  return tracks[which];
}

static void nic_span(struct sim_comp *c, int which, const char *name, sim_time start,
                     sim_time end) {
  if (G_LIKELY(!c->traced)) return;
  trace_span(sim_trace(c->eng), nic_track(c, which), name, start, end);
}

/* A span on C's track WHICH that flow ID enters, leaves or passes (DIR,
 * trace.h). */
static void nic_span_flow(struct sim_comp *c, int which, const char *name, sim_time start,
                          sim_time end, uint64_t id, unsigned dir) {
  if (G_LIKELY(!c->traced)) return;
  trace_span_flow(sim_trace(c->eng), nic_track(c, which), name, start, end, id, dir);
}

/* The trace's flow id of message MSG_ID of node ORIGIN (the put's sender,
 * the get's initiator: its request and reply are one flow). */
static uint64_t msg_flow(uint32_t origin, uint64_t msg_id) {
  return (uint64_t)origin << 32 | (msg_id & 0xffffffffu);
}

static uint64_t op_new(struct nic_state *s, const struct nic_cmd *cmd, enum nic_role role) {
  uint32_t i;
  if (s->ops_free->len) {
    i = g_array_index(s->ops_free, uint32_t, s->ops_free->len - 1);
    g_array_set_size(s->ops_free, s->ops_free->len - 1);
  } else {
    i = s->ops->len;
    g_array_set_size(s->ops, i + 1);
  }
  struct nic_opr *o = &g_array_index(s->ops, struct nic_opr, i);
  *o = (struct nic_opr){.cmd = *cmd, .role = (uint8_t)role, .live = true};
  return (uint64_t)i + 1;
}

static struct nic_opr *op_get(struct nic_state *s, uint64_t h) {
  g_assert(h >= 1 && h <= s->ops->len);
  struct nic_opr *o = &g_array_index(s->ops, struct nic_opr, h - 1);
  g_assert(o->live);
  return o;
}

static void op_free(struct nic_state *s, uint64_t h) {
  op_get(s, h)->live = false;
  uint32_t i = (uint32_t)(h - 1);
  g_array_append_val(s->ops_free, i);
}

/* A bus message of KIND to DST_DEV; NEXT chains another behind it (bus.h). */
static uint64_t bus_msg(struct sim_comp *c, enum pkind kind, uint8_t dst_dev, int64_t bytes,
                        uint32_t a, uint32_t b, uint64_t op, uint64_t next) {
  struct nic_state *s = c->state;
  struct pmsg *m;
  uint64_t h = pmsg_new(c->eng, kind, &m);
  m->dst_dev = dst_dev;
  m->src_dev = DEV_NIC;
  m->src_node = m->dst_node = s->node;
  m->bytes = bytes;
  m->a = a;
  m->b = b;
  m->op = op;
  g_assert(next <= UINT32_MAX);
  m->next = (uint32_t)next;
  return h;
}

static void send_bus(struct sim_comp *c, sim_time delay, enum pkind kind, uint8_t dst_dev,
                     int64_t bytes, uint32_t a, uint32_t b, uint64_t op) {
  sim_send(c, NIC_PORT_BUS, delay, (uint16_t)kind, bus_msg(c, kind, dst_dev, bytes, a, b, op, 0));
}

/* The flag message for F (0: none); STORE: an NVLink store (pmsg.nvl). */
static uint64_t flag_msg(struct sim_comp *c, struct pflag f, bool store) {
  if (f.id == 0) return 0;
  uint64_t h = bus_msg(c, PK_FLAG, f.watcher, NIC_FLAG_BYTES, f.id, 1, 0, 0);
  if (store) ((struct pmsg *)sim_payload(c->eng, h))->nvl = 1;
  return h;
}

/* Writes flag F (0: none) DELAY from now; STORE: as an NVLink store (the
 * bus passes it at once). */
/* Flag message H out to the bus DELAY from now: an NVLink store (STORE)
 * passes the bus as a relay to WATCHER's port (bus.h). */
static void flag_out(struct sim_comp *c, uint64_t h, sim_time delay, bool store, int watcher) {
  if (store) sim_send_via(c, NIC_PORT_BUS, delay, PK_FLAG, h, watcher);
  else sim_send(c, NIC_PORT_BUS, delay, PK_FLAG, h);
}

static void send_flag(struct sim_comp *c, struct pflag f, sim_time delay, bool store) {
  if (f.id) flag_out(c, flag_msg(c, f, store), delay, store, f.watcher);
}

/* A received packet's payload (when WRITE) written to memory DELAY from
 * now, then, when FLAG names one, the message's completion flag: the flag
 * rides behind the write as one chain (bus.h) where both go. */
static void deliver(struct sim_comp *c, sim_time delay, bool write, int64_t payload, uint64_t op,
                    struct pflag flag, bool store) {
  uint64_t fh = flag_msg(c, flag, store);
  if (write) {
    sim_send(c, NIC_PORT_BUS, delay, PK_MEM_WRITE,
             bus_msg(c, PK_MEM_WRITE, DEV_MEM, payload, 0, 0, op, fh));
  } else if (fh) {
    flag_out(c, fh, delay, store, flag.watcher);
  }
}

/* The port a packet to DST leaves by, and that port's sending side (nic.h). */
static struct nic_tx *tx_to(struct nic_state *s, uint32_t dst) {
  return &s->tx[net_same_node(s->net, s->node, dst) ? 1 : 0];
}


/* Reserves the egress for one packet and sends it; returns its tail time. */
static sim_time send_packet(struct sim_comp *c, uint32_t dst, enum nic_ptype type, int64_t payload,
                            uint64_t msg_id, uint32_t seq, uint32_t count, int64_t msg_bytes,
                            struct pflag flag, bool store, bool ack) {
  struct nic_state *s = c->state;
  uint64_t h = sim_payload_new(c->eng);
  struct nic_packet *p = sim_payload(c->eng, h);
  int64_t wire = payload + s->net->header_bytes;
  p->m = (struct pmsg){.kind = PK_PACKET, .src_node = s->node, .dst_node = dst, .bytes = payload,
                       .op = msg_id, .seq = seq, .count = count, .a = ack};
  p->type = (uint8_t)type;
  p->flag_id = flag.id;
  p->flag_watcher = flag.watcher;
  p->msg_bytes = msg_bytes;
  p->store = store;
  sim_time now = sim_now(c->eng), ser;
  struct nic_tx *t = tx_to(s, dst);
  int port = t->port;
  struct net_egress *q = &t->eg;
  sim_time delay = net_egress_send(q, now, wire, s->net->switching, &ser);
  bool saf = s->net->switching == NET_STORE_FORWARD;
  sim_time w = port == NIC_PORT_NVL ? s->net->intra_switch_latency : s->net->switch_latency;
  flow_spend(&t->flow, 0, wire, flow_back_at(q->busy_until - ser, ser, c->ports[port].latency_ps, w, saf));
  sim_cp_pre(c->eng, CP_WIRE, delay); /* its wait for the egress and its serialization */
  sim_send(c, port, delay, PK_PACKET, h);
  s->packets_sent++;
  s->bytes_sent += wire;
  if (port == NIC_PORT_NVL) s->nvl_bytes_sent += wire;
  s->payload_sent += payload;
  return q->busy_until;
}

static void dma_read(struct sim_comp *c, uint64_t h) {
  struct nic_state *s = c->state;
  struct nic_opr *o = op_get(s, h);
  o->dma_start = sim_now(c->eng);
  s->dma_reads++;
  /* Only the first packet's payload is waited for: the rest streams in
   * behind injection (nic.h). */
  send_bus(c, 0, PK_DMA_READ, DEV_MEM, MIN(o->cmd.bytes, s->net->mtu), 0, 0, h);
}

/* ---- sending: send queues and their arbiter (nic.h "Sending") ---- */

static const char *job_name(uint8_t type) {
  static const char *const names[] = {"tx put", "tx get request", "tx get reply", "tx ack"};
  return type < G_N_ELEMENTS(names) ? names[type] : "tx";
}

/* The payload of job J's next packet. */
static int64_t job_payload(const struct nic_state *s, const struct nic_job *j) {
  if (j->type == NIC_PT_GET_REQ || j->type == NIC_PT_ACK) return 0;
  return MIN(s->net->mtu, j->bytes - (int64_t)j->seq * s->net->mtu);
}

/* Job J's next packet goes now (the port is free); returns its tail time. */
static sim_time job_send(struct sim_comp *c, struct nic_job *j) {
  struct nic_state *s = c->state;
  bool put = j->type == NIC_PT_PUT;
  if (j->seq == 0) {
    sim_time now = sim_now(c->eng), busy = tx_to(s, j->dst)->eg.busy_until;
    j->first = busy > now ? busy : now;
  }
  sim_time end = send_packet(c, j->dst, j->type, job_payload(s, j), j->msg_id, j->seq, j->count,
                             j->bytes, put ? j->remote : (struct pflag){0}, j->store, put && j->ack);
  j->seq++;
  return end;
}

/* Job J's last packet has gone, its tail leaving at END. */
static void job_done(struct sim_comp *c, const struct nic_job *j, sim_time end) {
  struct nic_state *s = c->state;
  if (j->type == NIC_PT_ACK) {
    nic_span(c, TR_TX, job_name(j->type), j->first, end);
  } else { /* the arrow on to its receive; from its fire or request when one was drawn */
    uint32_t origin = j->type == NIC_PT_GET_REP ? j->dst : s->node;
    nic_span_flow(c, TR_TX, job_name(j->type), j->first, end, msg_flow(origin, j->msg_id),
                  TRACE_FLOW_OUT | (j->flow ? TRACE_FLOW_IN : 0u));
  }
  if (j->type == NIC_PT_PUT && !j->ack) /* the send buffer is reusable */
    send_flag(c, j->local, end - sim_now(c->eng), j->store);
}

static struct nic_job *job_at(struct nic_state *s, uint32_t i) {
  return pool_at(&s->jobs, struct nic_job, i);
}

static void tx_stall_end(struct nic_state *s, struct nic_tx *t, sim_time now) {
  if (t->blocked_since < 0) return;
  s->credit_stall += now - t->blocked_since;
  t->blocked_since = -1;
}

/* Port T sends, when free, one packet of the first send queue that fits its
 * credit: the queue served last while it has sent fewer than send_chunk in
 * a row, then the others in turn after it; then makes sure an event comes
 * when it can send the next (its EV_TX while queues wait, an EV_TX_WAKE
 * when credit may be back while they are blocked). */
static void tx_try(struct sim_comp *c, struct nic_tx *t) {
  struct nic_state *s = c->state;
  const struct nic_config *cfg = c->config;
  sim_time now = sim_now(c->eng);
  bool blocked = false;
  /* One packet per call but for empty ones (no header), which leave the port
   * free at the same instant. */
  while (t->eg.busy_until <= now && t->q.n) {
    uint32_t n = t->q.n, i0 = rr_first_after(&t->q, t->rr);
    if (t->cont < (uint32_t)cfg->send_chunk && t->rr != UINT32_MAX) {
      uint32_t k = rr_index(&t->q, t->rr); /* the queue served last, if still there */
      if (k < n && t->q.f[k].key == t->rr) i0 = k;
    }
    struct rr_fifo *f = NULL;
    blocked = false;
    for (uint32_t k = 0; k < n && !f; k++) {
      struct rr_fifo *g = &t->q.f[(i0 + k) % n];
      const struct nic_job *j = job_at(s, g->head - 1);
      if (flow_room(&t->flow, 0, now) < job_payload(s, j) + s->net->header_bytes) blocked = true;
      else f = g;
    }
    if (!f) break;
    tx_stall_end(s, t, now);
    if (f->key == t->rr) t->cont++;
    else t->rr = f->key, t->cont = 1;
    uint32_t ji = f->head - 1;
    struct nic_job *j = job_at(s, ji);
    sim_time end = job_send(c, j);
    if (j->seq == j->count) {
      struct nic_job done = *j;
      f->head = j->next;
      if (!f->head) {
        f->tail = 0;
        rr_drop(&t->q, f);
      }
      pool_give(&s->jobs, ji);
      job_done(c, &done, end);
    }
  }
  if (t->eg.busy_until <= now) {
    if (blocked) {
      sim_time at = flow_blocked(&t->flow, now, &t->blocked_since, &t->wake_at);
      if (at >= 0) {
        sim_cp_pre(c->eng, CP_WIRE, at - now); /* credit: the fabric holds the port */
        sim_schedule(c, at - now, EV_TX_WAKE, (uint64_t)(t - s->tx));
      }
    }
    return;
  }
  if (t->q.n && t->tx_at != t->eg.busy_until) {
    t->tx_at = t->eg.busy_until;
    sim_cp_pre(c->eng, CP_WIRE, t->tx_at - now); /* the port serializes the packet before */
    sim_schedule(c, t->tx_at - now, EV_TX, (uint64_t)(t - s->tx));
  }
}

/* Job J (copied) is ready to go: into its connection's send queue, or, with
 * fifo order and no credits to count, all its packets reserved back to back
 * at once (the NIC before issue 29). */
static void job_add(struct sim_comp *c, struct nic_job j) {
  struct nic_state *s = c->state;
  const struct nic_config *cfg = c->config;
  struct nic_tx *t = tx_to(s, j.dst);
  if (t->direct) {
    sim_time end = 0;
    while (j.seq < j.count) end = job_send(c, &j);
    job_done(c, &j, end);
    return;
  }
  uint32_t key = cfg->send_order == NIC_SEND_FIFO ? 0
                 : cfg->queue_pairs ? j.dst % (uint32_t)cfg->queue_pairs
                                    : j.dst;
  /* Alone on a free port with credit: its first packet goes now, as tx_try
   * would send it (the only queue), without queueing it first. */
  sim_time now = sim_now(c->eng);
  if (!t->q.n && t->eg.busy_until <= now &&
      flow_room(&t->flow, 0, now) >= job_payload(s, &j) + s->net->header_bytes) {
    if (key == t->rr) t->cont++;
    else t->rr = key, t->cont = 1;
    sim_time end = job_send(c, &j);
    if (j.seq == j.count) {
      job_done(c, &j, end);
      return;
    }
  }
  uint32_t i = pool_take(&s->jobs);
  j.next = 0;
  *job_at(s, i) = j;
  struct rr_fifo *f = rr_get(&t->q, key);
  if (f->tail) job_at(s, f->tail - 1)->next = i + 1;
  else f->head = i + 1;
  f->tail = i + 1;
  tx_try(c, t);
}

/* Operation H's data is ready: its packets join the send queue of their
 * connection (a put, or the reply of a served get); ends the operation but
 * for a put that waits for its ACK. */
static void inject(struct sim_comp *c, uint64_t h) {
  struct nic_state *s = c->state;
  struct nic_opr o = *op_get(s, h);
  bool acked = o.role == ROLE_PUT && o.cmd.ack; /* lives until the target's ACK */
  if (!acked) op_free(s, h);
  int64_t bytes = o.cmd.bytes, mtu = s->net->mtu;
  int64_t n = bytes == 0 ? 1 : (bytes + mtu - 1) / mtu;
  g_assert(n <= UINT32_MAX);
  bool serve = o.role == ROLE_SERVE;
  if (acked) /* the local flag waits for the target's ACK */
    g_hash_table_insert(s->awaiting, GUINT_TO_POINTER((guint)o.msg_id), GSIZE_TO_POINTER(h));
  job_add(c, (struct nic_job){.dst = serve ? o.peer : o.cmd.dst_node, .msg_id = (uint32_t)o.msg_id,
                              .count = (uint32_t)n, .bytes = bytes,
                              .remote = serve ? (struct pflag){0} : o.cmd.remote,
                              .local = serve ? (struct pflag){0} : o.cmd.local,
                              .type = serve ? NIC_PT_GET_REP : NIC_PT_PUT, .store = o.store,
                              .ack = acked, .flow = o.flow});
}

/* Starts operation H: a put (DMA read, then packets) or a get (request). */
static void op_start(struct sim_comp *c, uint64_t h) {
  struct nic_state *s = c->state;
  struct nic_opr *o = op_get(s, h);
  o->msg_id = s->next_msg++;
  g_assert(o->msg_id <= UINT32_MAX);
  if (G_UNLIKELY(o->flow)) { /* fired: the arrow from the trigger's match goes on from here */
    sim_time now = sim_now(c->eng);
    nic_span_flow(c, TR_TRIG, "fire", now, now, msg_flow(s->node, o->msg_id), TRACE_FLOW_OUT);
  }
  if (o->cmd.op == NIC_GET || o->cmd.op == NIC_TGET) {
    o->role = ROLE_GET;
    s->gets_started++;
    g_hash_table_insert(s->awaiting, GUINT_TO_POINTER((guint)o->msg_id), GSIZE_TO_POINTER(h));
    job_add(c, (struct nic_job){.dst = o->cmd.dst_node, .msg_id = (uint32_t)o->msg_id, .count = 1,
                                .bytes = o->cmd.bytes, .type = NIC_PT_GET_REQ, .flow = o->flow});
    return;
  }
  o->role = ROLE_PUT;
  s->puts++;
  const struct nic_config *cfg = c->config;
  bool direct = (cfg->nvl_direct || o->store) && net_same_node(s->net, s->node, o->cmd.dst_node);
  if (o->cmd.bytes > 0 && !direct) dma_read(c, h);
  else inject(c, h);
}

static void stat_entries(struct sim_comp *c) {
  struct nic_state *s = c->state;
  stat_tw_set(&s->in_use, sim_now(c->eng), (double)tl_in_use(s->tl));
}

/* ---- command queue and trigger FIFO ---- */

static void trig_act(struct sim_comp *c);
static void cmd_act(struct sim_comp *c);

/* An entry was freed: in stall mode, retry the stalled heads at once. */
static void entry_freed(struct sim_comp *c) {
  struct nic_state *s = c->state;
  if (s->trig_stalled) {
    s->trig_stalled = false;
    trig_act(c);
  }
  if (s->cmd_stalled) {
    s->cmd_stalled = false;
    cmd_act(c);
  }
}

/* Tells the host whether it may post another triggered operation (ROOM). */
static void host_room(struct sim_comp *c, bool room) {
  struct nic_state *s = c->state;
  s->full = !room;
  send_bus(c, 0, PK_NIC_ROOM, DEV_CPU, 0, room, 0, 0);
}

static void fire(struct sim_comp *c, const struct tl_result *r) {
  struct nic_state *s = c->state;
  if (r->status != TL_FIRED) return;
  s->ops_fired++;
  struct nic_opr *o = op_get(s, r->op);
  if (o->held) {
    const struct nic_config *cfg = c->config;
    o->held = false;
    if (s->held-- == (uint64_t)cfg->triggered_ops && s->full) host_room(c, true);
  }
  o->flow = c->traced; /* a "fire" span opens its message's arrow */
  op_start(c, r->op);
  entry_freed(c);
}

static void stall_begin(struct nic_state *s, bool *stalled, sim_time *since, sim_time now) {
  *stalled = true;
  if (*since < 0) {
    *since = now;
    s->stalls++;
  }
}

static void stall_end(struct sim_comp *c, sim_time *since, int which) {
  struct nic_state *s = c->state;
  if (*since < 0) return;
  sim_time now = sim_now(c->eng);
  s->stall_time += now - *since;
  nic_span(c, which, "stall (trigger list full)", *since, now);
  *since = -1;
}

static void cmd_next(struct sim_comp *c) {
  struct nic_state *s = c->state;
  const struct nic_config *cfg = c->config;
  s->cmd_busy = s->cmdq.len > 0;
  if (!s->cmd_busy) return;
  s->cmd_start = sim_now(c->eng);
  sim_schedule(c, cfg->cmd_cost, EV_CMD_DONE, 0);
}

static const char *cmd_name(const struct nic_qitem *it, const struct nic_opr *o) {
  static const char *const names[] = {"put", "get", "triggered put", "triggered get", "post"};
  if (it->doorbell) return "doorbell";
  return o->cmd.op < G_N_ELEMENTS(names) ? names[o->cmd.op] : "command";
}

static void post(struct sim_comp *c, uint32_t cmd_id, uint64_t h) {
  struct nic_state *s = c->state;
  gpointer key = GUINT_TO_POINTER(cmd_id);
  guint waiting = GPOINTER_TO_UINT(g_hash_table_lookup(s->doorbells, key));
  if (waiting) {
    if (waiting == 1) g_hash_table_remove(s->doorbells, key);
    else g_hash_table_insert(s->doorbells, key, GUINT_TO_POINTER(waiting - 1));
    op_start(c, h);
    return;
  }
  g_assert(!g_hash_table_contains(s->posted, key)); /* one live post per cmd_id */
  g_hash_table_insert(s->posted, key, GSIZE_TO_POINTER(h));
}

static void ring_doorbell(struct sim_comp *c, uint32_t cmd_id) {
  struct nic_state *s = c->state;
  gpointer key = GUINT_TO_POINTER(cmd_id);
  uint64_t h = GPOINTER_TO_SIZE(g_hash_table_lookup(s->posted, key));
  if (h) {
    g_hash_table_remove(s->posted, key);
    op_start(c, h);
    return;
  }
  guint waiting = GPOINTER_TO_UINT(g_hash_table_lookup(s->doorbells, key));
  g_hash_table_insert(s->doorbells, key, GUINT_TO_POINTER(waiting + 1));
}

/* The head command acts (its cost is paid), or retries after a stall. */
static void cmd_act(struct sim_comp *c) {
  struct nic_state *s = c->state;
  const struct nic_config *cfg = c->config;
  sim_time now = sim_now(c->eng);
  struct nic_qitem it = *(struct nic_qitem *)ring_at(&s->cmdq, 0);
  if (it.doorbell) {
    ring_pop(&s->cmdq);
    ring_doorbell(c, it.cmd_id);
    cmd_next(c);
    return;
  }
  struct nic_opr *o = op_get(s, it.op);
  if (o->cmd.op == NIC_TPUT || o->cmd.op == NIC_TGET) {
    struct tl_result r = tl_register(s->tl, o->cmd.tag, o->cmd.threshold, it.op);
    stat_entries(c);
    if (r.status == TL_STALLED) {
      stall_begin(s, &s->cmd_stalled, &s->cmd_stall_since, now);
      return;
    }
    stall_end(c, &s->cmd_stall_since, TR_MAIN);
    ring_pop(&s->cmdq);
    s->registrations++;
    if (r.overflow) {
      s->overflow_lookups++;
      s->cmd_pending = r;
      nic_span(c, TR_MAIN, "overflow lookup", now, now + cfg->overflow_lookup);
      sim_schedule(c, cfg->overflow_lookup, EV_CMD_TAIL, 0);
      return;
    }
    fire(c, &r);
    cmd_next(c);
    return;
  }
  ring_pop(&s->cmdq);
  if (o->cmd.op == NIC_POST) post(c, o->cmd.cmd_id, it.op);
  else op_start(c, it.op);
  cmd_next(c);
}

static void cmd_arrive(struct sim_comp *c, const struct nic_qitem *it) {
  struct nic_state *s = c->state;
  ring_push(&s->cmdq, it);
  if (!s->cmd_busy && !s->cmd_stalled) cmd_next(c);
}

static void trig_next(struct sim_comp *c) {
  struct nic_state *s = c->state;
  const struct nic_config *cfg = c->config;
  s->trig_busy = s->trigq.len > 0;
  if (!s->trig_busy) return;
  s->trig_start = sim_now(c->eng);
  struct trig_item *it = ring_at(&s->trigq, 0);
  sim_schedule(c, it->paid ? 0 : cfg->match_latency * (sim_time)it->count, EV_MATCH_DONE, 0);
}

/* The head trigger store acts (popped and matched), or retries. */
static void trig_act(struct sim_comp *c) {
  struct nic_state *s = c->state;
  const struct nic_config *cfg = c->config;
  sim_time now = sim_now(c->eng);
  struct trig_item *it = ring_at(&s->trigq, 0);
  it->paid = true;
  while (it->count > 0) {
    struct tl_result r = tl_store(s->tl, it->tag);
    stat_entries(c);
    if (r.status == TL_STALLED) {
      stall_begin(s, &s->trig_stalled, &s->trig_stall_since, now);
      return;
    }
    stall_end(c, &s->trig_stall_since, TR_TRIG);
    it->count--;
    if (r.allocated) s->triggers_allocated++;
    else s->triggers_matched++;
    if (r.overflow) {
      s->overflow_lookups++;
      s->trig_pending = r;
      if (it->count == 0) ring_pop(&s->trigq);
      nic_span(c, TR_TRIG, "overflow lookup", now, now + cfg->overflow_lookup);
      sim_schedule(c, cfg->overflow_lookup, EV_MATCH_TAIL, 0);
      return;
    }
    fire(c, &r);
  }
  ring_pop(&s->trigq);
  trig_next(c);
}

/* ---- receiving ---- */

/* Counts packet SEQ of message (SRC, MSG) of COUNT packets; true at the last. */
static bool rx_last(struct nic_state *s, uint32_t src, uint64_t msg, uint32_t count) {
  if (count <= 1) return true;
  int64_t key = (int64_t)(((uint64_t)src << 32) | (msg & 0xFFFFFFFFu));
  struct nic_rx *r = g_hash_table_lookup(s->rx, &key);
  if (!r) {
    r = g_new0(struct nic_rx, 1);
    r->key = key;
    g_hash_table_add(s->rx, r);
  }
  if (++r->got < count) return false;
  g_hash_table_remove(s->rx, &key);
  return true;
}

static void packet_arrive(struct sim_comp *c, int port, uint64_t h) {
  struct nic_state *s = c->state;
  struct nic_packet p = *(struct nic_packet *)sim_payload(c->eng, h);
  sim_payload_free(c->eng, h);
  g_assert(p.m.kind == PK_PACKET && p.m.dst_node == s->node);
  s->packets_received++;
  int64_t payload = p.m.bytes, wire = payload + s->net->header_bytes;
  s->bytes_received += wire;
  s->payload_received += payload;
  sim_time now = sim_now(c->eng);
  /* When the whole packet is here (net.h's delivery rule at an endpoint),
   * at the bandwidth of the port it came in by. */
  int64_t bw = port == NIC_PORT_NVL ? s->net->intra_bandwidth : s->net->link_bandwidth;
  sim_time done = s->net->switching == NET_CUT_THROUGH ? net_ser_time(wire, bw) : 0;
  sim_cp_cat(c->eng, CP_WIRE); /* what follows waits for the packet's tail */
  bool direct = ((const struct nic_config *)c->config)->nvl_direct;
  switch (p.type) {
  case NIC_PT_GET_REQ: {
    struct nic_cmd cmd = {.op = NIC_GET, .dst_node = p.m.src_node, .bytes = p.msg_bytes};
    uint64_t oh = op_new(s, &cmd, ROLE_SERVE);
    struct nic_opr *o = op_get(s, oh);
    o->peer = p.m.src_node;
    o->msg_id = p.m.op;
    o->flow = c->traced; /* the request's tx span opened its arrow */
    sim_schedule(c, done, EV_GET_SERVE, oh);
    break;
  }
  case NIC_PT_PUT: {
    bool last = rx_last(s, p.m.src_node, p.m.op, p.m.count);
    if (last)
      nic_span_flow(c, TR_RX, "put received", now, now + done, msg_flow(p.m.src_node, p.m.op),
                    TRACE_FLOW_IN);
    deliver(c, done, payload > 0 && !((direct || p.store) && port == NIC_PORT_NVL), payload,
            p.m.op, last ? (struct pflag){.id = p.flag_id, .watcher = p.flag_watcher}
                         : (struct pflag){0},
            p.store);
    /* An RC transport acknowledges a whole message once it is here. */
    if (last && p.m.a)
      sim_schedule(c, done, EV_ACK, (uint64_t)p.m.src_node << 32 | (uint32_t)p.m.op);
    break;
  }
  case NIC_PT_ACK: {
    uint64_t oh =
        GPOINTER_TO_SIZE(g_hash_table_lookup(s->awaiting, GUINT_TO_POINTER((guint)p.m.op)));
    g_assert(oh != 0);
    send_flag(c, op_get(s, oh)->cmd.local, done, false);
    g_hash_table_remove(s->awaiting, GUINT_TO_POINTER((guint)p.m.op));
    op_free(s, oh);
    break;
  }
  case NIC_PT_GET_REP: {
    uint64_t oh =
        GPOINTER_TO_SIZE(g_hash_table_lookup(s->awaiting, GUINT_TO_POINTER((guint)p.m.op)));
    g_assert(oh != 0);
    struct nic_opr *o = op_get(s, oh);
    bool last = ++o->rx == p.m.count;
    if (last)
      nic_span_flow(c, TR_RX, "get reply received", now, now + done, msg_flow(s->node, p.m.op),
                    TRACE_FLOW_IN);
    deliver(c, done, payload > 0 && !(direct && port == NIC_PORT_NVL), payload, p.m.op,
            last ? o->cmd.local : (struct pflag){0}, false);
    if (last) {
      g_hash_table_remove(s->awaiting, GUINT_TO_POINTER((guint)p.m.op));
      op_free(s, oh);
    }
    break;
  }
  default: g_error("%s: packet of unknown type %u", c->name, p.type);
  }
}

/* ---- the component ---- */

static void bus_arrive(struct sim_comp *c, uint64_t h) {
  struct nic_state *s = c->state;
  struct pmsg m = *(struct pmsg *)sim_payload(c->eng, h);
  sim_payload_free(c->eng, h);
  switch (m.kind) {
  case PK_NIC_CMD: {
    struct nic_cmd cmd = *(struct nic_cmd *)sim_payload(c->eng, m.op);
    sim_payload_free(c->eng, m.op);
    if (m.nvl) { /* an NVLink store: the GPU's own writes, no command processing */
      if (cmd.op != NIC_PUT || !net_same_node(s->net, s->node, cmd.dst_node))
        g_error("%s: an NVLink store must be a put to a GPU of the same node", c->name);
      s->nvl_stores++;
      uint64_t oh = op_new(s, &cmd, ROLE_PUT);
      op_get(s, oh)->store = true;
      op_start(c, oh);
      break;
    }
    s->commands++;
    struct nic_qitem it = {.op = op_new(s, &cmd, ROLE_PUT)};
    if (m.src_dev == DEV_CPU && (cmd.op == NIC_TPUT || cmd.op == NIC_TGET)) {
      const struct nic_config *cfg = c->config;
      op_get(s, it.op)->held = true;
      if (++s->held == (uint64_t)cfg->triggered_ops && !s->full) host_room(c, false);
    }
    cmd_arrive(c, &it);
    break;
  }
  case PK_DOORBELL: {
    s->doorbells_rung++;
    struct nic_qitem it = {.doorbell = true, .cmd_id = m.a};
    cmd_arrive(c, &it);
    break;
  }
  case PK_TRIGGER: {
    struct trig_item it = {.tag = m.a, .count = m.b ? m.b : 1, .flow = m.op};
    s->triggers_stored += it.count;
    ring_push(&s->trigq, &it);
    if (!s->trig_busy && !s->trig_stalled) trig_next(c);
    break;
  }
  case PK_DMA_DATA: {
    struct nic_opr *o = op_get(s, m.op);
    nic_span(c, TR_DMA, "dma read", o->dma_start, sim_now(c->eng));
    inject(c, m.op);
    break;
  }
  default: g_error("%s: unexpected message kind %u from the bus", c->name, m.kind);
  }
}

static void nic_handle(struct sim_comp *c, const struct sim_event *ev) {
  struct nic_state *s = c->state;
  g_assert(!s->released);
  if (ev->port == NIC_PORT_BUS) {
    bus_arrive(c, ev->data);
    return;
  }
  if (ev->port == NIC_PORT_NET || ev->port == NIC_PORT_NVL) {
    int idx = ev->port == NIC_PORT_NVL ? 1 : 0;
    switch (ev->kind) {
    case PK_PACKET: packet_arrive(c, ev->port, ev->data); break;
    case PK_LINK_HOLD: flow_hold(&s->tx[idx].flow, (uint32_t)ev->data); break;
    case PK_LINK_CREDIT: /* usable from the next picosecond (flow.h) */
      flow_credit(&s->tx[idx].flow, flow_credit_vl(ev->data), flow_credit_bytes(ev->data),
                  sim_now(c->eng) + 1);
      sim_schedule(c, 1, EV_TX_WAKE, (uint64_t)idx);
      break;
    default: g_error("%s: unexpected event kind %u on port %u", c->name, ev->kind, ev->port);
    }
    return;
  }
  sim_time now = sim_now(c->eng);
  switch (ev->kind) {
  case EV_CMD_DONE: {
    const struct nic_qitem *it = ring_at(&s->cmdq, 0);
    nic_span(c, TR_MAIN, cmd_name(it, it->doorbell ? NULL : op_get(s, it->op)), s->cmd_start, now);
    cmd_act(c);
    break;
  }
  case EV_CMD_TAIL:
    fire(c, &s->cmd_pending);
    cmd_next(c);
    break;
  case EV_MATCH_DONE: {
    struct trig_item *it = ring_at(&s->trigq, 0);
    if (it->flow) nic_span_flow(c, TR_TRIG, "match", s->trig_start, now, it->flow, TRACE_FLOW_IN);
    else nic_span(c, TR_TRIG, "match", s->trig_start, now);
    it->flow = 0; /* the arrow ends at its first match (an overflow's rest is matched again) */
    trig_act(c);
    break;
  }
  case EV_MATCH_TAIL:
    fire(c, &s->trig_pending);
    trig_next(c);
    break;
  case EV_GET_SERVE:
    if (op_get(s, ev->data)->cmd.bytes > 0) dma_read(c, ev->data);
    else inject(c, ev->data);
    break;
  case EV_ACK:
    job_add(c, (struct nic_job){.dst = (uint32_t)(ev->data >> 32), .msg_id = (uint32_t)ev->data,
                                .count = 1, .type = NIC_PT_ACK});
    break;
  case EV_TX:
  case EV_TX_WAKE: {
    struct nic_tx *t = &s->tx[ev->data];
    if (ev->kind == EV_TX && t->tx_at == now) t->tx_at = -1;
    if (ev->kind == EV_TX_WAKE && t->wake_at == now) t->wake_at = -1;
    tx_try(c, t);
    break;
  }
  default: g_error("%s: unknown self event %u", c->name, ev->kind);
  }
}

/* Frees what nic_add allocated: the type's destroy hook. */
static void nic_release(struct nic_state *s) {
  if (s->released) return;
  s->released = true;
  tl_free(s->tl);
  s->tl = NULL;
  g_free(s->cmdq.buf);
  g_free(s->trigq.buf);
  g_array_free(s->ops, TRUE);
  g_array_free(s->ops_free, TRUE);
  g_hash_table_destroy(s->posted);
  g_hash_table_destroy(s->doorbells);
  g_hash_table_destroy(s->awaiting);
  g_hash_table_destroy(s->rx);
  pool_release(&s->jobs);
  for (int i = 0; i < 2; i++) {
    rr_release(&s->tx[i].q);
    flow_release(&s->tx[i].flow);
  }
}

static void nic_destroy(struct sim_comp *c) { nic_release(c->state); }

/* Once linked: a port that feeds a switch counts that switch's credit (with
 * network.flow_control credit); one joined to a NIC, or to nothing, sends
 * freely (a NIC drains what it receives). */
static void nic_init(struct sim_comp *c) {
  struct nic_state *s = c->state;
  const struct nic_config *cfg = c->config;
  for (int i = 0; i < 2; i++) {
    struct nic_tx *t = &s->tx[i];
    const struct sim_port *p = &c->ports[t->port];
    bool to_switch = p->connected && sw_is_switch(sim_comp_get(c->eng, p->peer));
    flow_init(&t->flow, to_switch ? net_buffer(s->net, i == 1) : 0);
    t->direct = cfg->send_order == NIC_SEND_FIFO && !flow_limited(&t->flow);
  }
}

const struct sim_out_decl nic_outs[] = {
    [NIC_OUT_COMMANDS] = OUT(commands, UNIT_NONE, "commands through the command queue"),
    [NIC_OUT_NVL_STORES] = OUT(nvl_stores, UNIT_NONE,
                               "NVLink stores: puts the GPU's SMs write themselves"),
    [NIC_OUT_DOORBELLS] = OUT(doorbells, UNIT_NONE, "doorbells rung (GDS)"),
    [NIC_OUT_REGISTRATIONS] = OUT(registrations, UNIT_NONE,
                                  "triggered operations registered on the trigger list"),
    [NIC_OUT_PUTS] = OUT(puts, UNIT_NONE, "puts started"),
    [NIC_OUT_GETS] = OUT(gets, UNIT_NONE, "gets started"),
    [NIC_OUT_DMA_READS] = OUT(dma_reads, UNIT_NONE,
                              "DMA reads started (a put's first packet, a get's data at its "
                              "target)"),
    [NIC_OUT_TRIGGERS_STORED] = OUT(triggers_stored, UNIT_NONE,
                                    "trigger stores (tags) from the GPU"),
    [NIC_OUT_TRIGGERS_MATCHED] = OUT(triggers_matched, UNIT_NONE,
                                     "trigger stores that found their entry"),
    [NIC_OUT_TRIGGERS_UNMATCHED] = OUT(triggers_unmatched, UNIT_NONE,
                                       "trigger stores that came first and allocated an entry"),
    [NIC_OUT_OPS_FIRED] = OUT(ops_fired, UNIT_NONE, "triggered operations fired"),
    [NIC_OUT_ENTRIES_IN_USE_MEAN] = OUT_F(entries_in_use_mean, UNIT_NONE, SIM_OUT_REAL,
                                          "trigger-list entries in use, time-weighted mean"),
    [NIC_OUT_ENTRIES_IN_USE_MAX] = OUT(entries_in_use_max, UNIT_NONE,
                                       "the most trigger-list entries in use at once"),
    [NIC_OUT_ENTRIES_LEFT] = OUT(entries_left, UNIT_NONE,
                                 "entries still held at the end (list and overflow)"),
    [NIC_OUT_OVERFLOW_ENTRIES] = OUT(overflow_entries, UNIT_NONE,
                                     "entries spilled to the overflow in host memory"),
    [NIC_OUT_OVERFLOW_LOOKUPS] = OUT(overflow_lookups, UNIT_NONE,
                                     "searches or writes of the overflow"),
    [NIC_OUT_STALLS] = OUT(stalls, UNIT_NONE, "stalls on a full trigger list (trigger_full: stall)"),
    [NIC_OUT_STALL_TIME] = OUT(stall_time, UNIT_TIME, "time stalled, to the end of the run"),
    [NIC_OUT_STALLED_AT_END] = OUT(stalled_at_end, UNIT_NONE, "1: still stalled when the run ended"),
    [NIC_OUT_PACKETS_SENT] = OUT(packets_sent, UNIT_NONE, "packets sent"),
    [NIC_OUT_BYTES_SENT] = OUT(bytes_sent, UNIT_SIZE, "wire bytes sent (payload and headers)"),
    [NIC_OUT_NVL_BYTES_SENT] = OUT(nvl_bytes_sent, UNIT_SIZE,
                                   "of bytes_sent, those through the NVLink port"),
    [NIC_OUT_PAYLOAD_SENT] = OUT(payload_sent, UNIT_SIZE, "payload bytes sent"),
    [NIC_OUT_PACKETS_RECEIVED] = OUT(packets_received, UNIT_NONE, "packets received"),
    [NIC_OUT_BYTES_RECEIVED] = OUT(bytes_received, UNIT_SIZE, "wire bytes received"),
    [NIC_OUT_PAYLOAD_RECEIVED] = OUT(payload_received, UNIT_SIZE, "payload bytes received"),
    [NIC_OUT_CREDIT_STALL] = OUT(credit_stall, UNIT_TIME,
                                 "time a port had a packet to send and no credit for it, summed "
                                 "over ports (0 without network.flow_control credit)"),
};
SIM_OUT_GROUP(nic_outputs, "nic", "node<i>.nic.KEY; by kind node.nic.KEY", nic_outs,
              NIC_OUT_COUNT);

static void nic_finish(struct sim_comp *c, struct sim_report *r) {
  struct nic_state *s = c->state;
  sim_time now = sim_now(c->eng);
  bool stalled = s->cmd_stalled || s->trig_stalled;
  sim_time stall_time = s->stall_time;
  if (s->cmd_stall_since >= 0) stall_time += now - s->cmd_stall_since;
  if (s->trig_stall_since >= 0) stall_time += now - s->trig_stall_since;
  s->overflowed_final = tl_overflowed(s->tl);
  s->left_final = tl_in_use(s->tl) + tl_overflow_len(s->tl);
  sim_out_int(r, c, NIC_OUT_COMMANDS, (int64_t)s->commands);
  sim_out_int(r, c, NIC_OUT_NVL_STORES, (int64_t)s->nvl_stores);
  sim_out_int(r, c, NIC_OUT_DOORBELLS, (int64_t)s->doorbells_rung);
  sim_out_int(r, c, NIC_OUT_REGISTRATIONS, (int64_t)s->registrations);
  sim_out_int(r, c, NIC_OUT_PUTS, (int64_t)s->puts);
  sim_out_int(r, c, NIC_OUT_GETS, (int64_t)s->gets_started);
  sim_out_int(r, c, NIC_OUT_DMA_READS, (int64_t)s->dma_reads);
  sim_out_int(r, c, NIC_OUT_TRIGGERS_STORED, (int64_t)s->triggers_stored);
  sim_out_int(r, c, NIC_OUT_TRIGGERS_MATCHED, (int64_t)s->triggers_matched);
  sim_out_int(r, c, NIC_OUT_TRIGGERS_UNMATCHED, (int64_t)s->triggers_allocated);
  sim_out_int(r, c, NIC_OUT_OPS_FIRED, (int64_t)s->ops_fired);
  sim_out_real(r, c, NIC_OUT_ENTRIES_IN_USE_MEAN, stat_tw_mean(&s->in_use, now));
  sim_out_int(r, c, NIC_OUT_ENTRIES_IN_USE_MAX, (int64_t)s->in_use.max);
  sim_out_int(r, c, NIC_OUT_ENTRIES_LEFT, (int64_t)s->left_final);
  sim_out_int(r, c, NIC_OUT_OVERFLOW_ENTRIES, (int64_t)s->overflowed_final);
  sim_out_int(r, c, NIC_OUT_OVERFLOW_LOOKUPS, (int64_t)s->overflow_lookups);
  sim_out_int(r, c, NIC_OUT_STALLS, (int64_t)s->stalls);
  sim_out_int(r, c, NIC_OUT_STALL_TIME, stall_time);
  sim_out_int(r, c, NIC_OUT_STALLED_AT_END, stalled ? 1 : 0);
  sim_out_int(r, c, NIC_OUT_PACKETS_SENT, (int64_t)s->packets_sent);
  sim_out_int(r, c, NIC_OUT_BYTES_SENT, s->bytes_sent);
  sim_out_int(r, c, NIC_OUT_NVL_BYTES_SENT, s->nvl_bytes_sent);
  sim_out_int(r, c, NIC_OUT_PAYLOAD_SENT, s->payload_sent);
  sim_out_int(r, c, NIC_OUT_PACKETS_RECEIVED, (int64_t)s->packets_received);
  sim_out_int(r, c, NIC_OUT_BYTES_RECEIVED, s->bytes_received);
  sim_out_int(r, c, NIC_OUT_PAYLOAD_RECEIVED, s->payload_received);
  sim_time credit_stall = s->credit_stall;
  for (int i = 0; i < 2; i++)
    if (s->tx[i].blocked_since >= 0) credit_stall += now - s->tx[i].blocked_since;
  sim_out_int(r, c, NIC_OUT_CREDIT_STALL, credit_stall);
  const struct nic_config *cfg = c->config;
  ph_add(r, PH_NIC, (int64_t)(s->commands + s->doorbells_rung) * cfg->cmd_cost +
                        (int64_t)s->triggers_stored * cfg->match_latency +
                        (int64_t)s->overflow_lookups * cfg->overflow_lookup);
  /* Link and switch latencies are not the NIC's; NVLink bytes at intra_bandwidth. */
  int64_t nvl = (int64_t)s->nvl_bytes_sent;
  ph_add(r, PH_WIRE, net_ser_time((int64_t)s->bytes_sent - nvl, s->net->link_bandwidth) +
                         (nvl ? net_ser_time(nvl, s->net->intra_bandwidth) : 0));
}

/* Fetching ahead (sim_type.prefetch): the operation a DMA read's data or
 * the head command names, the trigger list a store or a registration
 * searches. */
static void nic_prefetch_op(const struct nic_state *s, uint64_t h) {
  if (h >= 1 && h <= s->ops->len) __builtin_prefetch(&g_array_index(s->ops, struct nic_opr, h - 1));
}

static void nic_prefetch(const struct sim_comp *c, const struct sim_event *ev, int stage) {
  const struct nic_state *s = c->state;
  if (ev->port == NIC_PORT_BUS) {
    if (stage != 1) return;
    const struct pmsg *m = sim_payload(c->eng, ev->data);
    if (m->kind == PK_DMA_DATA) nic_prefetch_op(s, m->op);
    else if (m->kind == PK_TRIGGER) tl_prefetch(s->tl);
    return;
  }
  if (ev->port != SIM_PORT_SELF) return;
  if (ev->kind == EV_TX || ev->kind == EV_TX_WAKE) { /* the queues' heads, then their jobs */
    if (ev->data > 1) return;
    const struct nic_tx *t = &s->tx[ev->data];
    if (stage == 1) {
      if (t->q.f) __builtin_prefetch(t->q.f);
      if (t->flow.heap) __builtin_prefetch(t->flow.heap);
      return;
    }
    for (uint32_t k = 0; k < t->q.n && k < 2; k++) {
      uint32_t i = t->q.f[k].head;
      if (i >= 1 && i <= s->jobs.items->len)
        __builtin_prefetch(&g_array_index(s->jobs.items, struct nic_job, i - 1));
    }
    return;
  }
  const struct nic_ring *r = ev->kind == EV_CMD_DONE ? &s->cmdq : ev->kind == EV_MATCH_DONE ? &s->trigq : NULL;
  if (!r || r->len == 0) return;
  const char *head = r->buf + r->head * r->elem;
  if (stage == 1) {
    __builtin_prefetch(head);
    tl_prefetch(s->tl);
  } else if (ev->kind == EV_CMD_DONE) {
    const struct nic_qitem *it = (const struct nic_qitem *)head;
    if (!it->doorbell) nic_prefetch_op(s, it->op);
  }
}

const struct sim_type nic_type = {
    .name = "nic",
    .doc = "a NIC with a command queue and a GPU-TN trigger list",
    .params = &nic_params,
    .ports = nic_ports,
    .n_ports = 3,
    .state_size = sizeof(struct nic_state),
    .init = nic_init,
    .handle = nic_handle,
    .outputs = &nic_outputs,
    .finish = nic_finish,
    .destroy = nic_destroy,
    .port_payloads = true,
    .prefetch = nic_prefetch,
    .cp_cat = CP_NIC,
    .cp_port_link = nic_port_link,
};

static gboolean rx_equal(gconstpointer a, gconstpointer b) { return g_int64_equal(a, b); }

struct sim_comp *nic_add(struct sim_engine *e, const char *name, const struct nic_config *cfg,
                         const struct net_config *net, const struct nodeprog *prog, uint32_t node) {
  g_assert(cfg && net);
  g_assert(cfg->trigger_entries >= 1 && cfg->trigger_entries <= UINT32_MAX);
  g_assert(net->mtu >= 1 && net->header_bytes >= 0 && net->link_bandwidth > 0);
  g_assert(net->gpus_per_node <= 1 || net->intra_bandwidth > 0);
  struct sim_comp *c = sim_add(e, &nic_type, name, cfg);
  struct nic_state *s = c->state;
  s->net = net;
  s->prog = prog;
  s->node = node;
  s->tl = tl_new((uint32_t)cfg->trigger_entries,
                 cfg->trigger_full == TL_STALL ? TL_STALL : TL_SPILL);
  for (int i = 0; i < 2; i++)
    s->tx[i] = (struct nic_tx){.eg = {.bw_bps = i ? net->intra_bandwidth : net->link_bandwidth},
                               .rr = UINT32_MAX, .tx_at = -1, .wake_at = -1, .blocked_since = -1,
                               .port = i ? NIC_PORT_NVL : NIC_PORT_NET};
  pool_init(&s->jobs, sizeof(struct nic_job));
  s->cmdq.elem = sizeof(struct nic_qitem);
  s->trigq.elem = sizeof(struct trig_item);
  s->cmd_stall_since = s->trig_stall_since = -1;
  s->ops = g_array_new(FALSE, FALSE, sizeof(struct nic_opr));
  s->ops_free = g_array_new(FALSE, FALSE, sizeof(uint32_t));
  s->posted = g_hash_table_new(g_direct_hash, g_direct_equal);
  s->doorbells = g_hash_table_new(g_direct_hash, g_direct_equal);
  s->awaiting = g_hash_table_new(g_direct_hash, g_direct_equal);
  s->rx = g_hash_table_new_full(g_int64_hash, rx_equal, g_free, NULL);
  s->next_msg = 1;
  stat_tw_init(&s->in_use, sim_now(e), 0);
  return c;
}
