/* The host CPU (see cpu.h): the main thread's host steps, the GPU->CPU
 * control-flow switch (poll or interrupt), helper threads polling the
 * GPU->CPU request queue (ghn). GPU-TN Table 2 and Sec. 1; DESIGN.md Sec. 3.
 * A graph host program may be read while it runs (nodeprog.h, np_source). */
#include "cpu.h"

#include <glib.h>
#include <gsl/gsl_randist.h>
#include <stddef.h>
#include <string.h>

#include "phase.h"
#include "trace.h"

enum {
  EV_MAIN = 1, /* the main thread goes on (graph programs: its task ended) */
  EV_DONE,     /* graph programs: wait step `data` is over */
};

/* Where the main thread's time goes. */
enum cpu_cat {
  CAT_COMPUTE, CAT_LAUNCH, CAT_BUILD, CAT_REGISTER, CAT_SEND, CAT_RECV,
  CAT_WAIT_KERNEL, CAT_SWITCH, CAT_WAIT_FLAG, N_CAT
};
static const char *const cat_names[N_CAT] = {
    "compute", "launch", "build cmd", "register trigger", "send",
    "recv",    "wait kernel", "switch", "wait flag"};
#define CAT_OUT_(cat, out) (CPU_OUT_COMPUTE_TIME + (cat) == (out))
_Static_assert(CAT_OUT_(CAT_LAUNCH, CPU_OUT_LAUNCH_TIME) && CAT_OUT_(CAT_BUILD, CPU_OUT_BUILD_TIME) &&
                   CAT_OUT_(CAT_REGISTER, CPU_OUT_REGISTER_TIME) &&
                   CAT_OUT_(CAT_SEND, CPU_OUT_SEND_TIME) && CAT_OUT_(CAT_RECV, CPU_OUT_RECV_TIME) &&
                   CAT_OUT_(CAT_WAIT_KERNEL, CPU_OUT_WAIT_KERNEL_TIME) &&
                   CAT_OUT_(CAT_SWITCH, CPU_OUT_SWITCH_TIME) &&
                   CAT_OUT_(CAT_WAIT_FLAG, CPU_OUT_WAIT_FLAG_TIME) && N_CAT == 9,
               "the CPU's time outputs follow enum cpu_cat");
#undef CAT_OUT_

enum main_wait { MW_NONE, MW_KERNEL, MW_FLAG, MW_QUEUE, MW_NIC };

/* Where a chain's current step stands (the chain executor). */
enum chain_at {
  CH_READY,   /* its dependency has held: graph_ready's rules apply next */
  CH_QUEUED,  /* it waits for the thread */
  CH_RUNNING, /* on the thread until EV_MAIN */
  CH_FLAG,    /* a wait for its flag */
  CH_KERNEL,  /* a wait for its kernel's completion record */
  CH_NOTICE,  /* a kernel wait that has seen its record, until EV_DONE */
};

struct cpu_state {
  uint64_t burst; /* launches since the main thread last waited */
  const struct nodeprog *prog;
  uint32_t node;
  size_t pc;              /* next host step */
  size_t passed;          /* a streamed sequence program (np_seq): the waits before it
                             have set their flags back to 0 */
  /* A chain (nodeprog.chain), see "the chain executor": step pc is live
   * (chain_on; else the program has ended), where it stands, when its
   * kernel wait began, since when the thread has had no task. */
  bool chain, chain_on;
  uint8_t chain_at;       /* enum chain_at */
  sim_time chain_since, chain_idle;
  uint8_t wait;           /* enum main_wait */
  uint32_t wait_id;       /* kernel or flag waited on */
  sim_time wait_start;
  sim_time done_at;       /* main thread finished; -1 before */
  sim_time result_at;     /* and every kernel it launched completed and noticed; -1 before */
  uint64_t outstanding;   /* kernels launched and not completed */
  uint64_t *flags;        /* n_words: n_flags + 1, more as a streamed program's grow */
  sim_time *flag_at;      /* streamed: per flag, when it was last set; -1: not since reset */
  uint64_t *flag_stamp;   /* streamed: per flag, the graph's stamp then */
  size_t n_words;
  uint32_t *launched, *completed; /* per kernel */
  uint8_t *kernel_queue;  /* per kernel: the queue of its latest launch */
  uint32_t queued[256];   /* per queue: kernels launched and not completed */
  uint64_t launch_blocks; /* launches that found their queue full */
  bool nic_full;          /* the NIC said it holds nic.triggered_ops of our registrations */
  sim_time *last_done;    /* per kernel: arrival of its latest completion record */
  size_t n_kwords;        /* kernels the four arrays above hold */
  sim_time *helper_free;  /* per helper: when it is free */
  uint32_t n_helpers;
  int main_track, *helper_track;
  /* The main thread's open loops (nodeprog.h, np_loops), outermost first. */
  struct np_loop loop[NP_MAX_DEPTH];
  uint32_t depth;
  /* Graph host programs (nodeprog.host_deps), see "the graph executor". */
  struct graph *g;
  /* Statistics. */
  sim_time time[N_CAT];
  uint64_t launches, nic_cmds, host_requests, kernel_waits;
  sim_time helper_wait, helper_wait_max, helper_busy;
};

#define PAR_CONFIG struct cpu_config
static const struct par_decl cpu_decls[] = {
    PAR(cores, PAR_INT, "8", "1", "1024", NULL, "cores (GPU-TN Table 2)"),
    PAR(clock, PAR_FREQ, "4GHz", "1MHz", "100GHz", NULL,
      "core clock (GPU-TN Table 2; informative: the costs below are times)"),
    PAR(launch_submit, PAR_TIME, "1us", "0ps", "1s", NULL,
      "submit one queue command: write an AQL packet and ring the user-mode queue (~1us; "
      "CUDA/HIP launch calls measure 2-5us)"),
    {"submit_table", PAR_TABLE, "", "0ps", "1s", NULL,
     "a launch's submit cost against its place in a burst (launches since the main thread "
     "last waited, itself included), e.g. \"1:5us, 1024:3.7us\"; empty: launch_submit",
     offsetof(struct cpu_config, submit_table)},
    PAR(launch, PAR_ENUM, "direct", NULL, NULL, "direct|graph",
      "how the host launches kernels: each by its own call (direct), or the kernels it "
      "launches back to back captured once as a graph (CUDA Graphs) and replayed by one call, "
      "each then launched by the GPU's front end (graph: under the host-driven policies gds, "
      "hdn, hdn2s, copy and overlap, workloads/policies/graph.c; the others launch once and "
      "ignore it)"),
    PAR(graph_launch, PAR_TIME, "1100ns", "0ps", "1s", NULL,
      "host cost of one graph replay call (cudaGraphLaunch), whatever its kernels (an H200 "
      "host measures 1.10 us for chains of 1 to 64 kernels, a direct launch 3.04 us: "
      "tools/calib/graph_probe.cu, configs/fused/hw.yaml)"),
    PAR(task_overhead, PAR_TIME, "0ps", "0ps", "1s", NULL,
      "a task runtime's host work per task (dependence analysis, mapping: Legion/Legate), "
      "added to each kernel launch and NIC command the main thread issues (0: no runtime)"),
    PAR(launch_per_buffer, PAR_TIME, "0ps", "0ps", "1s", NULL,
      "added to a kernel launch's submit cost per memory object the kernel takes as an "
      "argument (kernel.buffers): OpenCL's enqueue tracks each one (H200, NVIDIA's OpenCL: "
      "0.25 us each, calibrate's enqueue_args); 0: CUDA, whose launch cost does not depend on "
      "its arguments (trigsim-cuda-probe's launch_args)"),
    {"buffer_table", PAR_TABLE, "", "0ps", "1s", NULL,
     "what a launch's submit cost adds against the memory objects the kernel takes "
     "(kernel.buffers), measured as it is rather than as a slope, e.g. \"0:0ps, 1:640ns, "
     "2:685ns, 3:2.34us\" (calibrate's enqueue_args less its no-argument enqueue); between "
     "entries linear, past the last + launch_per_buffer each; empty: launch_per_buffer each",
     offsetof(struct cpu_config, buffer_table)},
    PAR(send, PAR_TIME, "1us", "0ps", "1s", NULL,
      "host network stack's two-sided send path (MPI eager send over Portals/verbs, ~1us)"),
    PAR(recv, PAR_TIME, "500ns", "0ps", "1s", NULL,
      "host network stack's receive completion and matching (~0.5us)"),
    PAR(build_cmd, PAR_TIME, "200ns", "0ps", "1s", NULL,
      "build and post a one-sided NIC command descriptor (estimate: ~800 cycles at 4GHz, "
      "an ibv_post_send-like call; its crossing of the bus and the NIC's cmd_cost are charged "
      "there)"),
    PAR(register_trigger, PAR_TIME, "200ns", "0ps", "1s", NULL,
      "build and register a triggered operation (PtlTriggeredPut-like): the same command "
      "descriptor build_cmd builds, written as its trigger entry (GPU-TN Sec. 3.1, 3.3, 4.1: "
      "one or two 64 B lines, handed to the NIC as the command; bus and cmd_cost charged "
      "there), so build_cmd's value and source; set the two alike"),
    PAR(switch_mode, PAR_ENUM, "poll", NULL, NULL, "poll|interrupt",
      "how the CPU notices a kernel completion: spinning on the signal, or an interrupt"),
    PAR(switch_poll_interval, PAR_TIME, "500ns", "0ps", "1s", NULL,
      "period of the completion-signal poll (runtime's spin-wait loop with back-off)"),
    PAR(interrupt_latency, PAR_TIME, "5us", "0ps", "1s", NULL,
      "completion interrupt delivery plus waking the waiting thread (~5us)"),
    PAR(wake_jitter, PAR_TIME, "0ps", "0ps", "1s", NULL,
      "mean of the exponential delay by which a thread that blocked waiting for a kernel wakes "
      "late (its host's scheduling and launch: what skews ranks at their next collective; on an "
      "H200 pair's host, two processes, the default spin schedule: the next kernel's start less "
      "the last one's end, on the GPU's clock, is a shifted exponential of mean 1.78 us, "
      "tools/calib/probes/wake_skew.cu); 0: none"),
    PAR(pageable_copy, PAR_TIME, "1400ns", "0ps", "1s", NULL,
      "a device-to-host copy into pageable host memory: the driver's host work once the copy "
      "engine has filled its pinned staging buffer (copying it to the destination), paid by "
      "the thread whose cudaMemcpyAsync waits for it (H100, CUDA 13: an 8 B copy into "
      "pageable memory adds 1.4 us more than into pinned, configs/cpufree-ics23/copy_home.cu)"),
    PAR(helper_threads, PAR_INT, "0", "0", "1023", NULL,
      "helper threads serving GPU requests (ghn), each holding a core; at most cores - 1"),
    PAR(helper_poll_interval, PAR_TIME, "1us", "0ps", "1s", NULL,
      "period at which helper threads poll the GPU->CPU request queue"),
    PAR(helper_service, PAR_TIME, "1us", "0ps", "1s", NULL,
      "a helper reads a request, builds the command and posts it (~build + send)"),
    PAR(flops_per_cycle, PAR_INT, "8", "1", "4096", NULL,
      "flops per core per cycle a CPU-computed phase sustains (8-wide OOO, GPU-TN Table 2)"),
    PAR(launch_queue_depth, PAR_INT, "1024", "1", "16777216", NULL,
      "kernels a GPU queue holds launched and not completed; the next launch blocks until "
      "one completes (CUDA: ~1000 per stream, measured in NVIDIA forum thread 68937 / "
      "StackOverflow 53970187; a host program that runs ahead is held to it)"),
    PAR(mem_bandwidth, PAR_BANDWIDTH, "320Gbps", "1Mbps", "1000Tbps", NULL,
      "memory bandwidth all cores together sustain in a CPU-computed phase (~40 GB/s: "
      "STREAM-like, ~5 GB/s per core on DDR4)"),
};
#undef PAR_CONFIG

static bool check_config(const void *cfg, char **err) { return cpu_config_check(cfg, err); }

const struct par_group cpu_params = {
    .name = "cpu",
    .doc = "host CPU: main thread costs, control-flow switch, helper threads",
    .decls = cpu_decls,
    .n_decls = PAR_COUNT(cpu_decls),
    .config_size = sizeof(struct cpu_config),
    .check = check_config,
};

static const char *const cpu_ports[] = {"bus"};

bool cpu_config_check(const struct cpu_config *cfg, char **err) {
  if (cfg->helper_threads < cfg->cores) return true;
  *err = g_strdup_printf("expected helper_threads at most cores - 1 = %" G_GINT64_FORMAT
                         ", got %" G_GINT64_FORMAT,
                         cfg->cores - 1, cfg->helper_threads);
  return false;
}

/* ---- helpers ---- */

sim_time cpu_buffer_cost(const struct cpu_config *cfg, uint32_t buffers) {
  const struct par_table *t = &cfg->buffer_table;
  if (t->n == 0) return cfg->launch_per_buffer * buffers;
  int64_t last = t->x[t->n - 1];
  if ((int64_t)buffers <= last) return par_table_eval(t, buffers);
  return t->y[t->n - 1] + cfg->launch_per_buffer * ((int64_t)buffers - last);
}

static void cpu_span(struct sim_comp *c, int track, const char *name, sim_time start,
                     sim_time end) {
  if (G_LIKELY(!c->traced) || end <= start) return;
  trace_span(sim_trace(c->eng), track, name, start, end);
}

static int main_track(struct sim_comp *c) {
  struct cpu_state *s = c->state;
  if (s->main_track < 0) s->main_track = sim_track_sub(c, "core0");
  return s->main_track;
}

/* The critical path's category of each of the main thread's. */
static const uint8_t cat_cp[N_CAT] = {
    [CAT_COMPUTE] = CP_CPU_COMPUTE, [CAT_LAUNCH] = CP_LAUNCH,     [CAT_BUILD] = CP_HOST_STACK,
    [CAT_REGISTER] = CP_HOST_STACK, [CAT_SEND] = CP_HOST_STACK,   [CAT_RECV] = CP_HOST_STACK,
    [CAT_WAIT_KERNEL] = CP_WAITING, [CAT_SWITCH] = CP_SWITCH,     [CAT_WAIT_FLAG] = CP_WAITING};

/* Charges the main thread D of category CAT from START; from now on (not
 * a wait that ended now), what the thread sends next waited on it. */
static void spend(struct sim_comp *c, enum cpu_cat cat, sim_time start, sim_time d) {
  struct cpu_state *s = c->state;
  s->time[cat] += d;
  if (start >= sim_now(c->eng) && d > 0) sim_cp_cat(c->eng, cat_cp[cat]);
  if (G_UNLIKELY(c->traced) && d > 0) cpu_span(c, main_track(c), cat_names[cat], start, start + d);
}

/* The execution index of the main thread's current step (np_loops). */
static uint64_t main_j(const struct cpu_state *s) { return np_loop_index(0, s->loop, s->depth); }

/* What wait step ST waits its flag for: value, times the executions so far. */
static uint64_t flag_want(const struct cpu_state *s, const struct hstep *st) {
  return np_wait_value(st->value, main_j(s));
}

/* Sends a message of KIND with A (and B) to DST after DELAY; a NIC
 * command A goes with its tag and id moved by ST's strides for execution
 * J (ST NULL: as written). */
static void cpu_send(struct sim_comp *c, sim_time delay, enum pkind kind, uint8_t dst,
                     uint8_t queue, uint32_t a, uint32_t b, const struct hstep *st, uint64_t j) {
  struct cpu_state *s = c->state;
  struct pmsg *m;
  uint64_t h = pmsg_new(c->eng, kind, &m);
  m->dst_dev = dst;
  m->src_dev = DEV_CPU;
  m->src_node = m->dst_node = s->node;
  m->queue = queue;
  m->a = a;
  m->b = b;
  if (kind == PK_NIC_CMD) {
    if (a >= s->prog->n_cmds)
      g_error("%s: NIC command %u of %zu", c->name, a, s->prog->n_cmds);
    uint64_t hc = sim_payload_new(c->eng);
    struct nic_cmd *cmd = sim_payload(c->eng, hc);
    *cmd = s->prog->cmds[a];
    if (st) {
      cmd->tag += (uint32_t)(j * st->tag_stride);
      cmd->cmd_id += (uint32_t)(j * st->id_stride);
    }
    m->op = hc;
    const struct np_give *give = s->prog->give;
    if (give && give->cmd_read) give->cmd_read(give->ctx, s->node, a);
  }
  sim_send(c, 0, delay, (uint16_t)kind, h);
}

static void graph_flags_grow(struct graph *g, size_t old, size_t n);

static void graph_kernels_grow(struct graph *g, size_t old, size_t n);

/* P (OLD elements of SIZE bytes) made N long, the new ones zeroed. */
static void *grow0(void *p, size_t size, size_t old, size_t n) {
  p = g_realloc_n(p, n, size);
  memset((char *)p + old * size, 0, (n - old) * size);
  return p;
}

/* Kernel K of the program; the per-kernel arrays grow with a streamed
 * program's (np_source). */
static void check_kernel(struct sim_comp *c, uint32_t k) {
  struct cpu_state *s = c->state;
  if (k >= s->prog->n_kernels) g_error("%s: kernel %u of %zu", c->name, k, s->prog->n_kernels);
  if (k < s->n_kwords) return;
  size_t old = s->n_kwords, n = MAX((size_t)k + 1, 2 * old);
  s->launched = grow0(s->launched, sizeof *s->launched, old, n);
  s->completed = grow0(s->completed, sizeof *s->completed, old, n);
  s->kernel_queue = grow0(s->kernel_queue, sizeof *s->kernel_queue, old, n);
  s->last_done = grow0(s->last_done, sizeof *s->last_done, old, n);
  if (s->g) graph_kernels_grow(s->g, old, n);
  s->n_kwords = n;
}

static void check_flag(struct sim_comp *c, uint32_t flag) {
  struct cpu_state *s = c->state;
  if (flag == 0 || flag > s->prog->n_flags)
    g_error("%s: flag %u outside 1..%u", c->name, flag, s->prog->n_flags);
  if (flag < s->n_words) return;
  /* A streamed program's source has handed out more flags (np_source). */
  size_t old = s->n_words, n = MAX((size_t)flag + 1, 2 * old);
  s->flags = grow0(s->flags, sizeof *s->flags, old, n);
  s->flag_at = g_renew(sim_time, s->flag_at, n);
  s->flag_stamp = g_renew(uint64_t, s->flag_stamp, n);
  for (size_t f = old; f < n; f++) s->flag_at[f] = -1, s->flag_stamp[f] = 0;
  if (s->g) graph_flags_grow(s->g, old, n);
  s->n_words = n;
}

/* When a wait for a completion record that arrived at ARRIVAL, begun at
 * START, is noticed (cpu.h). */
static sim_time notice_time(const struct cpu_config *cfg, sim_time start, sim_time arrival) {
  if (cfg->switch_mode == CPU_SWITCH_INTERRUPT) {
    sim_time t = arrival + cfg->interrupt_latency;
    return t > start ? t : start;
  }
  if (arrival <= start) return start;
  sim_time p = cfg->switch_poll_interval;
  if (p == 0) return arrival;
  return start + (arrival - start + p - 1) / p * p;
}

/* Whether the rank's result is due now (the end of a run, issue 33): its
 * program has ended, every kernel it launched has completed, and it has
 * not been marked yet. */
static bool result_due(const struct cpu_state *s) {
  return s->done_at >= 0 && s->outstanding == 0 && s->result_at < 0;
}

/* The rank's result is usable by its host, when due: at SEEN (>= now),
 * once its last kernel has been noticed; marked on the critical path. */
static void result_check(struct sim_comp *c, sim_time seen) {
  struct cpu_state *s = c->state;
  if (!result_due(s)) return;
  s->result_at = seen;
  sim_cp_mark(c, seen - sim_now(c->eng), CP_SWITCH);
}

/* How late a thread that waited from START for a record arrived at
 * ARRIVAL wakes: when it blocked (ARRIVAL > START), a draw of mean
 * wake_jitter from the component's stream (its host's scheduling); else 0. */
static sim_time wake_lateness(struct sim_comp *c, sim_time start, sim_time arrival) {
  const struct cpu_config *cfg = c->config;
  if (cfg->wake_jitter <= 0 || arrival <= start) return 0;
  return (sim_time)(gsl_ran_exponential(c->rng, (double)cfg->wake_jitter) + 0.5);
}

/* Accounts a kernel wait begun at START for a record arrived at ARRIVAL;
 * returns when the thread goes on. */
static sim_time kernel_wait_end(struct sim_comp *c, sim_time start, sim_time arrival) {
  const struct cpu_config *cfg = c->config;
  sim_time seen = notice_time(cfg, start, arrival) + wake_lateness(c, start, arrival);
  sim_time from = arrival > start ? arrival : start;
  spend(c, CAT_WAIT_KERNEL, start, from - start);
  spend(c, CAT_SWITCH, from, seen - from);
  return seen;
}

/* The thread's work of compute, launch and NIC command step ST begun at
 * NOW: charges it, sends what it sends, returns how long it takes. */
static sim_time thread_work(struct sim_comp *c, const struct hstep *st, sim_time now) {
  const struct cpu_config *cfg = c->config;
  struct cpu_state *s = c->state;
  const struct nodeprog *pr = s->prog;
  sim_time d = 0;
  switch (st->kind) {
  case HS_COMPUTE:
    d = st->time > 0 ? st->time : 0;
    spend(c, CAT_COMPUTE, now, d);
    break;
  case HS_LAUNCH: {
    if (st->qcmd >= pr->n_qcmds)
      g_error("%s: queue command %u of %zu", c->name, st->qcmd, pr->n_qcmds);
    const struct qcmd *qc = &pr->qcmds[st->qcmd];
    if (qc->kind == Q_KERNEL) {
      check_kernel(c, qc->kernel);
      s->launched[qc->kernel]++;
      s->kernel_queue[qc->kernel] = st->queue;
      s->queued[st->queue]++;
      s->outstanding++;
    }
    if (st->graph == 2) { /* submitted by the replay call before it */
      d = 0;
    } else if (st->graph == 1) {
      d = cfg->graph_launch + cfg->task_overhead;
    } else {
      s->burst++;
      d = (cfg->submit_table.n > 0 ? par_table_eval(&cfg->submit_table, (int64_t)s->burst)
                                   : cfg->launch_submit) +
          cfg->task_overhead;
      /* OpenCL's enqueue tracks each memory object argument; a replayed
       * graph's arguments were captured with it (calib28) */
      if (qc->kind == Q_KERNEL) d += cpu_buffer_cost(cfg, pr->kernels[qc->kernel].buffers);
    }
    spend(c, CAT_LAUNCH, now, d);
    s->launches++;
    cpu_send(c, d, PK_QUEUE_CMD, DEV_GPU, st->queue, st->qcmd, (uint32_t)main_j(s), NULL, 0);
    break;
  }
  case HS_SET_FLAG:
    check_flag(c, st->flag);
    cpu_send(c, 0, PK_FLAG, DEV_GPU, 0, st->flag, 1, NULL, 0);
    d = 0;
    break;
  case HS_NIC_CMD: {
    if (st->cmd >= pr->n_cmds)
      g_error("%s: NIC command %u of %zu", c->name, st->cmd, pr->n_cmds);
    uint8_t op = pr->cmds[st->cmd].op;
    bool trig = op == NIC_TPUT || op == NIC_TGET;
    sim_time b = (trig ? cfg->register_trigger : cfg->build_cmd) + cfg->task_overhead;
    spend(c, trig ? CAT_REGISTER : CAT_BUILD, now, b);
    d = b;
    if (st->two_sided) {
      spend(c, CAT_SEND, now + b, cfg->send);
      d += cfg->send;
    }
    s->nic_cmds++;
    cpu_send(c, d, PK_NIC_CMD, DEV_NIC, 0, st->cmd, 0, st, main_j(s));
    break;
  }
  default: g_error("%s: host step of unknown kind %u", c->name, st->kind);
  }
  return d;
}

/* The thread's work of a graph's task ST begun at NOW (thread_work; a
 * two-sided receive's completion costs cpu.recv): how long it takes. */
static sim_time task_work(struct sim_comp *c, const struct hstep *st, sim_time now) {
  const struct cpu_config *cfg = c->config;
  if (st->kind != HS_WAIT_FLAG) return thread_work(c, st, now);
  spend(c, CAT_RECV, now, cfg->recv);
  return cfg->recv;
}

/* ---- the graph executor (nodeprog.host_deps, or nodeprog.source) ----
 * Steps live in slots: step i in slot i for a whole program; slots the
 * source hands out and takes back (np_source) for a streamed one, whose
 * order key (seq) is the step's index in the whole program, so that both
 * pick tasks in the same order. */

enum { GS_BLOCKED, GS_READY, GS_STARTED, GS_DONE, GS_FREE /* an unused slot */ };

/* A dependent of a step: `to` waits for its start (on_start) or end. */
struct gedge {
  uint32_t to, next; /* next: the following edge + 1, 0: none */
  uint8_t on_start;
};

/* A slot: a step, where it stands, and (streamed) when it started and ended. */
struct gslot {
  uint64_t seq;               /* its order key */
  sim_time since;             /* when it became ready (its wait began) */
  uint32_t pending;           /* dependencies not yet met */
  uint32_t succ, succ_tail;   /* first and last edge of its dependents, + 1 */
  uint32_t next_wait;         /* next waiter on the same flag or kernel, + 1 */
  uint8_t phase;              /* GS_* */
  /* Streamed: when it started and ended (-1: not yet), and the moments. */
  sim_time t_start, t_done;
  uint64_t s_start, s_done;
};

struct graph {
  const struct hstep *host;   /* per slot: its step (a whole program's, or `own`) */
  struct hstep *own;          /* streamed: the steps added */
  struct gslot *sl;           /* per slot */
  size_t cap;                 /* slots the arrays hold */
  GArray *edges;              /* struct gedge */
  uint32_t edge_free;         /* a free edge + 1 (chained by next), 0: none */
  uint32_t *flag_head, *kern_head; /* per flag / kernel: first waiter, +1 */
  GArray *runq;               /* thread tasks ready: a binary heap of slots by (since, seq) */
  GArray *work;               /* slots whose dependencies just held */
  int64_t running;            /* the slot on the thread, -1: none */
  sim_time idle_since;        /* the thread has had nothing to run since, -1: busy */
  size_t n_added, n_done;
  /* Streamed (nodeprog.source): */
  const struct np_source *src;
  bool ended;                 /* the source has added its last step */
  uint32_t blocked;           /* steps added whose dependencies do not hold */
  /* Moments: the stamp counts the CPU's events and its thread's picks (a
   * moment is an event up to the next pick); per slot, the moments it
   * started and ended at, and the moment of the thread's last pick. */
  uint64_t stamp, pick_stamp;
  GArray *done_fifo;          /* slots in the order they ended */
  size_t done_head;
};

/* Whether slot A's task goes to the thread before slot B's: the one ready
 * first, ties by step order (seq: no two slots live share one). */
static bool ready_before(const struct graph *g, uint32_t a, uint32_t b) {
  const struct gslot *x = &g->sl[a], *y = &g->sl[b];
  return x->since != y->since ? x->since < y->since : x->seq < y->seq;
}

static void runq_push(struct graph *g, uint32_t i) {
  g_array_append_val(g->runq, i);
  uint32_t *h = (uint32_t *)(void *)g->runq->data;
  for (guint k = g->runq->len - 1; k > 0;) {
    guint up = (k - 1) / 2;
    if (!ready_before(g, h[k], h[up])) break;
    uint32_t t = h[k];
    h[k] = h[up], h[up] = t;
    k = up;
  }
}

/* Takes the task that goes first. */
static uint32_t runq_pop(struct graph *g) {
  uint32_t *h = (uint32_t *)(void *)g->runq->data, top = h[0];
  guint n = g->runq->len - 1;
  h[0] = h[n];
  g_array_set_size(g->runq, n);
  for (guint k = 0;;) {
    guint l = 2 * k + 1, m = k;
    if (l < n && ready_before(g, h[l], h[m])) m = l;
    if (l + 1 < n && ready_before(g, h[l + 1], h[m])) m = l + 1;
    if (m == k) break;
    uint32_t t = h[k];
    h[k] = h[m], h[m] = t;
    k = m;
  }
  return top;
}

/* Makes the per-slot arrays hold slot N - 1. */
static void graph_grow(struct graph *g, size_t n) {
  if (n <= g->cap) return;
  size_t old = g->cap, cap = MAX(n, 2 * old);
  g->sl = grow0(g->sl, sizeof *g->sl, old, cap);
  for (size_t i = old; i < cap; i++) g->sl[i].phase = GS_FREE;
  if (g->src) {
    g->own = g_renew(struct hstep, g->own, cap);
    g->host = g->own;
  }
  g->cap = cap;
}

static void graph_kernels_grow(struct graph *g, size_t old, size_t n) {
  g->kern_head = grow0(g->kern_head, sizeof *g->kern_head, old, n);
}

static void graph_flags_grow(struct graph *g, size_t old, size_t n) {
  g->flag_head = grow0(g->flag_head, sizeof *g->flag_head, old, n);
}

/* Step TO depends on slot FROM's start (ON_START) or end. */
static void graph_edge(struct graph *g, uint32_t from, uint32_t to, bool on_start) {
  uint32_t e;
  if (g->edge_free) {
    e = g->edge_free - 1;
    g->edge_free = g_array_index(g->edges, struct gedge, e).next;
  } else {
    e = g->edges->len;
    g_array_set_size(g->edges, e + 1);
  }
  g_array_index(g->edges, struct gedge, e) = (struct gedge){.to = to, .on_start = on_start};
  if (g->sl[from].succ_tail)
    g_array_index(g->edges, struct gedge, g->sl[from].succ_tail - 1).next = e + 1;
  else
    g->sl[from].succ = e + 1;
  g->sl[from].succ_tail = e + 1;
}

static struct graph *graph_alloc(const struct np_source *src) {
  struct graph *g = g_new0(struct graph, 1);
  g->src = src;
  g->edges = g_array_new(FALSE, FALSE, sizeof(struct gedge));
  g->runq = g_array_new(FALSE, FALSE, sizeof(uint32_t));
  g->work = g_array_new(FALSE, FALSE, sizeof(uint32_t));
  g->running = -1;
  g->idle_since = 0;
  if (src) g->done_fifo = g_array_new(FALSE, FALSE, sizeof(uint32_t));
  return g;
}

static struct graph *graph_new(const struct nodeprog *pr) {
  struct graph *g = graph_alloc(pr->source);
  g->flag_head = g_new0(uint32_t, pr->n_flags + 1);
  g->kern_head = g_new0(uint32_t, pr->n_kernels + 1);
  if (pr->source) {
    graph_grow(g, 64);
    return g;
  }
  size_t n = pr->n_host;
  graph_grow(g, n + 1);
  g->host = pr->host;
  g->n_added = n;
  for (size_t i = 0; i < n; i++) {
    const struct hstep *st = &pr->host[i];
    g->sl[i].seq = i;
    g->sl[i].phase = GS_BLOCKED;
    g->sl[i].since = 0;
    g->sl[i].pending = st->n_deps;
    for (uint32_t d = 0; d < st->n_deps; d++) {
      const struct hdep *dp = &pr->host_deps[st->dep_first + d];
      g_assert(dp->step < n && dp->step != i);
      graph_edge(g, dp->step, (uint32_t)i, dp->on_start);
    }
  }
  return g;
}

static void graph_free(struct graph *g) {
  if (!g) return;
  g_free(g->own);
  g_free(g->sl);
  g_array_free(g->edges, TRUE);
  g_free(g->flag_head);
  g_free(g->kern_head);
  g_array_free(g->runq, TRUE);
  g_array_free(g->work, TRUE);
  if (g->done_fifo) g_array_free(g->done_fifo, TRUE);
  g_free(g);
}

/* Meets the dependencies of step I's dependents of kind ON_START. */
static void graph_release(struct graph *g, uint32_t i, uint32_t on_start) {
  for (uint32_t e = g->sl[i].succ; e; e = g_array_index(g->edges, struct gedge, e - 1).next) {
    const struct gedge *ed = &g_array_index(g->edges, struct gedge, e - 1);
    if (ed->on_start != on_start) continue;
    uint32_t j = ed->to;
    if (--g->sl[j].pending == 0) {
      g_array_append_val(g->work, j);
      if (g->src) g->blocked--;
    }
  }
}

static void graph_start(struct sim_comp *c, struct graph *g, uint32_t i) {
  g->sl[i].phase = GS_STARTED;
  if (g->src) g->sl[i].t_start = sim_now(c->eng), g->sl[i].s_start = g->stamp;
  graph_release(g, i, 1);
}

/* Whether the program has ended: every step added has, and no more come. */
static void graph_check_end(struct sim_comp *c) {
  struct cpu_state *s = c->state;
  struct graph *g = s->g;
  if (g->n_done == g->n_added && (!g->src || g->ended) && s->done_at < 0) {
    s->done_at = sim_now(c->eng);
    result_check(c, s->done_at);
  }
}

static void graph_complete(struct sim_comp *c, uint32_t i) {
  struct cpu_state *s = c->state;
  struct graph *g = s->g;
  g_assert(g->sl[i].phase == GS_STARTED);
  g->sl[i].phase = GS_DONE;
  if (g->src) {
    g->sl[i].t_done = sim_now(c->eng);
    g->sl[i].s_done = g->stamp;
    g_array_append_val(g->done_fifo, i);
  }
  graph_release(g, i, 0);
  g->n_done++;
  graph_check_end(c);
}

static void graph_queue(struct graph *g, uint32_t i, sim_time since) {
  g->sl[i].since = since;
  runq_push(g, i);
}

/* A wait for kernel K, begun at START, saw its completion record of
 * ARRIVAL: step I ends when the thread notices it. */
static void graph_kernel_seen(struct sim_comp *c, uint32_t i, sim_time start, sim_time arrival) {
  sim_time end = kernel_wait_end(c, start, arrival);
  sim_schedule(c, end - sim_now(c->eng), EV_DONE, i);
}

/* Step I's wait on a flag holds since SINCE: a two-sided receive's
 * completion takes the thread (cpu.recv); a one-sided one is over. */
static void graph_flag_met(struct sim_comp *c, uint32_t i, sim_time since) {
  struct cpu_state *s = c->state;
  if (s->g->host[i].two_sided)
    graph_queue(s->g, i, since);
  else
    graph_complete(c, i);
}

/* Step I's dependencies hold since AT, moment STAMP (now, but for a
 * streamed step that cpu_stream_add found ready since earlier). */
static void graph_ready(struct sim_comp *c, uint32_t i, sim_time at, uint64_t stamp) {
  struct cpu_state *s = c->state;
  struct graph *g = s->g;
  const struct hstep *st = &g->host[i];
  sim_time now = sim_now(c->eng);
  g->sl[i].phase = GS_READY;
  g->sl[i].since = at; /* when its wait began; graph_queue sets it again for the thread */
  switch (st->kind) {
  case HS_WAIT_KERNEL: {
    uint32_t k = st->kernel;
    check_kernel(c, k);
    s->kernel_waits++;
    graph_start(c, g, i);
    if (s->completed[k] < s->launched[k]) {
      g->sl[i].next_wait = g->kern_head[k];
      g->kern_head[k] = i + 1;
    } else if (s->launched[k] > 0) {
      graph_kernel_seen(c, i, now, s->last_done[k]);
    } else {
      graph_complete(c, i);
    }
    break;
  }
  case HS_WAIT_FLAG:
    check_flag(c, st->flag);
    graph_start(c, g, i);
    if (g->src) g->sl[i].t_start = at, g->sl[i].s_start = stamp;
    if (s->flags[st->flag] >= st->value) {
      graph_flag_met(c, i, g->src ? MAX(at, s->flag_at[st->flag]) : now);
    } else {
      g->sl[i].next_wait = g->flag_head[st->flag];
      g->flag_head[st->flag] = i + 1;
    }
    break;
  default: graph_queue(g, i, at); break;
  }
}

/* Streamed: gives back the slots of steps that ended before now (a step
 * that names one of them as a dependency finds it met before now), then
 * lets the source read on. */
static void graph_refill(struct sim_comp *c) {
  struct cpu_state *s = c->state;
  struct graph *g = s->g;
  sim_time now = sim_now(c->eng);
  while (g->done_head < g->done_fifo->len) {
    uint32_t i = g_array_index(g->done_fifo, uint32_t, g->done_head);
    if (g->sl[i].t_done >= now) break;
    g->done_head++;
    for (uint32_t e = g->sl[i].succ; e;) {
      struct gedge *ed = &g_array_index(g->edges, struct gedge, e - 1);
      uint32_t next = ed->next;
      ed->next = g->edge_free;
      g->edge_free = e;
      e = next;
    }
    g->sl[i].succ = g->sl[i].succ_tail = 0;
    g->sl[i].phase = GS_FREE;
    const struct hstep *st = &g->host[i];
    if (st->kind == HS_WAIT_FLAG) { /* its flag may serve another receive */
      s->flags[st->flag] = 0;
      s->flag_at[st->flag] = -1;
      s->flag_stamp[st->flag] = 0;
    } /* a kernel's id serves another once its record is here (np_give): its
         counts go on */
    g->n_added--, g->n_done--;
    g->src->release(g->src->ctx, s->node, i);
  }
  if (g->done_head == g->done_fifo->len) {
    g_array_set_size(g->done_fifo, 0);
    g->done_head = 0;
  } else if (g->done_head > 4096 && 2 * g->done_head > g->done_fifo->len) {
    g_array_remove_range(g->done_fifo, 0, (guint)g->done_head);
    g->done_head = 0;
  }
  g->src->read(g->src->ctx, s->node, c);
  graph_check_end(c);
}

/* Handles every step made ready, then gives the thread its next task. */
static void graph_run(struct sim_comp *c) {
  struct cpu_state *s = c->state;
  struct graph *g = s->g;
  for (;;) {
    while (g->work->len) {
      uint32_t i = g_array_index(g->work, uint32_t, g->work->len - 1);
      g_array_set_size(g->work, g->work->len - 1);
      graph_ready(c, i, sim_now(c->eng), g->stamp);
    }
    if (g->src && !g->ended) {
      graph_refill(c);
      if (g->work->len) continue;
    }
    if (g->running >= 0) return;
    sim_time now = sim_now(c->eng), d = 0;
    if (g->runq->len == 0) {
      if (g->idle_since < 0) g->idle_since = now;
      return;
    }
    /* A thread that waited with steps left waited for a flag or a kernel. */
    if (g->idle_since >= 0 && (g->n_done < g->n_added || (g->src && !g->ended)))
      spend(c, CAT_WAIT_FLAG, g->idle_since, now - g->idle_since);
    g->idle_since = -1;
    g->pick_stamp = ++g->stamp;
    uint32_t i = runq_pop(g);
    if (g->sl[i].phase == GS_READY) graph_start(c, g, i);
    d = task_work(c, &g->host[i], now);
    if (d > 0) {
      /* The steps that wait for its start (irequires) are ready now, not
       * when it ends: the loop handles them, then returns (running). */
      g->running = i;
      sim_schedule(c, d, EV_MAIN, 0);
      continue;
    }
    graph_complete(c, i);
  }
}

uint32_t cpu_stream_blocked(const struct sim_comp *c) {
  const struct cpu_state *s = c->state;
  return s->g->blocked;
}

void cpu_stream_end(struct sim_comp *c) {
  struct cpu_state *s = c->state;
  s->g->ended = true;
}

bool cpu_stream_add(struct sim_comp *c, uint32_t slot, uint64_t seq, const struct hstep *st,
                    const struct hdep *deps, size_t n, bool old) {
  struct cpu_state *s = c->state;
  struct graph *g = s->g;
  g_assert(g->src);
  sim_time now = sim_now(c->eng);
  graph_grow(g, (size_t)slot + 1);
  g->own[slot] = *st;
  g->sl[slot].seq = seq;
  g->sl[slot].phase = GS_BLOCKED;
  g->sl[slot].since = now;
  g->sl[slot].next_wait = 0;
  g->sl[slot].t_start = g->sl[slot].t_done = -1;
  g->n_added++;
  /* When its dependencies held, if they all do: at R, moment M (the
   * latest of theirs; an op with none since the start, moment 1). */
  uint32_t pending = 0;
  sim_time r = 0;
  uint64_t m = n || old ? 0 : 1;
  bool thread_start = false;
  for (size_t d = 0; d < n; d++) {
    uint32_t j = deps[d].step;
    graph_grow(g, (size_t)j + 1); /* a later op (not yet added) is not met */
    bool met = g->sl[j].phase == GS_DONE || (deps[d].on_start && g->sl[j].phase == GS_STARTED);
    if (!met) {
      graph_edge(g, j, slot, deps[d].on_start);
      pending++;
      continue;
    }
    r = MAX(r, deps[d].on_start ? g->sl[j].t_start : g->sl[j].t_done);
    m = MAX(m, deps[d].on_start ? g->sl[j].s_start : g->sl[j].s_done);
    /* A task's start releases its dependents at the thread's next event. */
    thread_start |= deps[d].on_start && g->host[j].kind != HS_WAIT_FLAG;
  }
  g->sl[slot].pending = pending;
  if (pending) {
    g->blocked++;
    return true;
  }
  /* Read late, it runs as it would have only if nothing it could change
   * has happened since its moment: that moment is now (an event of this
   * call, the thread has taken no task since), or the thread has been busy
   * since it, so that it would have waited for the thread (queued since
   * R). A dependency given back ended at an earlier event, when exactly is
   * no longer kept. A receive starts at its moment; once its data has
   * arrived its completion queues for the thread (two-sided) or it ends
   * (one-sided), at the later of its moment and the arrival. */
  if (thread_start || (old && m != g->stamp)) return false;
  bool busy = g->running >= 0;
  if (st->kind == HS_WAIT_FLAG) {
    /* Steps added before it that wait for it (written before it) would
     * start too late. */
    if (m != g->stamp && g->sl[slot].succ) return false;
    check_flag(c, st->flag);
    if (s->flags[st->flag] >= st->value) {
      uint64_t qm = MAX(m, s->flag_stamp[st->flag]);
      if (qm != g->stamp && (!st->two_sided || !busy || g->pick_stamp >= qm)) return false;
    }
  } else if (m != g->stamp && (!busy || g->pick_stamp >= m)) {
    return false;
  }
  graph_ready(c, slot, r, m);
  return true;
}

static void graph_kernel_done(struct sim_comp *c, uint32_t k) {
  struct cpu_state *s = c->state;
  struct graph *g = s->g;
  if (s->completed[k] < s->launched[k]) return;
  uint32_t w = g->kern_head[k];
  g->kern_head[k] = 0;
  for (; w; w = g->sl[w - 1].next_wait) graph_kernel_seen(c, w - 1, g->sl[w - 1].since, sim_now(c->eng));
  graph_run(c);
}

static void graph_flag(struct sim_comp *c, uint32_t flag) {
  struct cpu_state *s = c->state;
  struct graph *g = s->g;
  uint32_t *link = &g->flag_head[flag];
  while (*link) {
    uint32_t i = *link - 1;
    if (s->flags[flag] >= g->host[i].value) {
      *link = g->sl[i].next_wait;
      graph_flag_met(c, i, sim_now(c->eng));
    } else {
      link = &g->sl[i].next_wait;
    }
  }
  graph_run(c);
}

/* The program op (+1) of the first step of a graph program that has not
 * ended (in program order), 0: none. */
static uint32_t graph_stuck(const struct cpu_state *s) {
  const struct graph *g = s->g;
  int64_t best = -1;
  for (size_t i = 0; i < g->cap; i++)
    if (g->sl[i].phase != GS_DONE && g->sl[i].phase != GS_FREE &&
        (best < 0 || g->sl[i].seq < g->sl[best].seq))
      best = (int64_t)i;
  return best >= 0 ? g->host[best].op : 0;
}

/* ---- the chain executor (nodeprog.chain) ----
 * A graph each of whose steps depends on the end of the one before, read
 * as a sequence (np_seq): one step is live at a time, and it goes through
 * the graph executor's rules above (graph_ready, graph_run, the waits'
 * ends) with nothing to record: step i + 1 is read when step i ends, and
 * is then ready. The same times, counters and events as the graph. */

static const struct hstep *main_step(struct cpu_state *s, size_t pc);

/* The chain's current step: in the window until the CPU asks for the
 * next (np_seq). */
static const struct hstep *chain_step(const struct cpu_state *s) {
  return &s->prog->host[s->pc - s->prog->host_base];
}

/* The chain's current step ended (graph_complete): the next is read and
 * ready, or the program has ended. */
static void chain_complete(struct sim_comp *c) {
  struct cpu_state *s = c->state;
  s->chain_on = main_step(s, ++s->pc) != NULL;
  s->chain_at = CH_READY;
  if (!s->chain_on && s->done_at < 0) { /* as graph_check_end */
    s->done_at = sim_now(c->eng);
    result_check(c, s->done_at);
  }
}

/* A wait of the current step, begun at START, saw its kernel's record of
 * ARRIVAL: it ends when the thread notices it (graph_kernel_seen). */
static void chain_kernel_seen(struct sim_comp *c, sim_time start, sim_time arrival) {
  struct cpu_state *s = c->state;
  s->chain_at = CH_NOTICE;
  sim_schedule(c, kernel_wait_end(c, start, arrival) - sim_now(c->eng), EV_DONE, 0);
}

/* The current step's flag is met (graph_flag_met). */
static void chain_flag_met(struct sim_comp *c) {
  struct cpu_state *s = c->state;
  if (chain_step(s)->two_sided) s->chain_at = CH_QUEUED;
  else chain_complete(c);
}

/* The current step's dependency has held now (graph_ready). */
static void chain_ready(struct sim_comp *c) {
  struct cpu_state *s = c->state;
  const struct hstep *st = chain_step(s);
  sim_time now = sim_now(c->eng);
  switch (st->kind) {
  case HS_WAIT_KERNEL: {
    uint32_t k = st->kernel;
    check_kernel(c, k);
    s->kernel_waits++;
    if (s->completed[k] < s->launched[k]) {
      s->chain_at = CH_KERNEL;
      s->chain_since = now;
    } else if (s->launched[k] > 0) {
      chain_kernel_seen(c, now, s->last_done[k]);
    } else {
      chain_complete(c);
    }
    break;
  }
  case HS_WAIT_FLAG:
    check_flag(c, st->flag);
    if (s->flags[st->flag] >= st->value) chain_flag_met(c);
    else s->chain_at = CH_FLAG;
    break;
  default: s->chain_at = CH_QUEUED; break;
  }
}

/* Handles the step made ready, then gives the thread its task (graph_run). */
static void chain_run(struct sim_comp *c) {
  struct cpu_state *s = c->state;
  for (;;) {
    while (s->chain_on && s->chain_at == CH_READY) chain_ready(c);
    if (s->chain_on && s->chain_at == CH_RUNNING) return;
    sim_time now = sim_now(c->eng), d;
    if (!s->chain_on || s->chain_at != CH_QUEUED) {
      if (s->chain_idle < 0) s->chain_idle = now;
      return;
    }
    /* A thread that waited with steps left waited for a flag or a kernel. */
    if (s->chain_idle >= 0) spend(c, CAT_WAIT_FLAG, s->chain_idle, now - s->chain_idle);
    s->chain_idle = -1;
    d = task_work(c, chain_step(s), now);
    if (d > 0) {
      s->chain_at = CH_RUNNING;
      sim_schedule(c, d, EV_MAIN, 0);
      return;
    }
    chain_complete(c);
  }
}

/* ---- the main thread ---- */

/* Host step PC of the sequence program, or NULL past its last; a streamed
 * one's source is asked for it when it is not there yet (np_seq). */
static const struct hstep *main_step(struct cpu_state *s, size_t pc) {
  const struct nodeprog *pr = s->prog;
  if (pc >= pr->n_host && pr->seq) {
    /* The flags of the waits passed may serve other receives. */
    for (size_t i = MAX(s->passed, pr->host_base); i < pc; i++) {
      const struct hstep *w = &pr->host[i - pr->host_base];
      if (w->kind != HS_WAIT_FLAG || w->flag >= s->n_words) continue;
      s->flags[w->flag] = 0;
      s->flag_at[w->flag] = -1;
      s->flag_stamp[w->flag] = 0;
    }
    s->passed = pc;
    pr->seq->host(pr->seq->ctx, s->node, pc);
  }
  return pc < pr->n_host ? &pr->host[pc - pr->host_base] : NULL;
}

/* Runs host steps from the current one until one takes time or waits. */
static void main_run(struct sim_comp *c) {
  const struct cpu_config *cfg = c->config;
  struct cpu_state *s = c->state;
  const struct nodeprog *pr = s->prog;
  sim_time now = sim_now(c->eng);
  for (const struct hstep *st; (st = main_step(s, s->pc));) {
    sim_time d = 0;
    switch (st->kind) {
    case HS_LAUNCH:
      if (st->qcmd < pr->n_qcmds && pr->qcmds[st->qcmd].kind == Q_KERNEL &&
          s->queued[st->queue] >= (uint64_t)cfg->launch_queue_depth) {
        s->launch_blocks++; /* the launch blocks until a kernel of its queue completes */
        s->wait = MW_QUEUE;
        s->wait_id = st->queue;
        s->wait_start = now;
        return;
      }
      d = thread_work(c, st, now);
      break;
    case HS_SET_FLAG: d = thread_work(c, st, now); break;
    case HS_NIC_CMD:
      if (s->nic_full && st->cmd < pr->n_cmds &&
          (pr->cmds[st->cmd].op == NIC_TPUT || pr->cmds[st->cmd].op == NIC_TGET)) {
        s->wait = MW_NIC; /* the registration call finds no room: it retries (nic_room) */
        s->wait_start = now;
        return;
      }
      d = thread_work(c, st, now);
      break;
    case HS_COMPUTE: d = thread_work(c, st, now); break;
    case HS_WAIT_KERNEL: {
      s->burst = 0;
      uint32_t k = st->kernel;
      check_kernel(c, k);
      s->kernel_waits++;
      if (s->completed[k] < s->launched[k]) {
        s->wait = MW_KERNEL;
        s->wait_id = k;
        s->wait_start = now;
        return;
      }
      if (s->launched[k] > 0) d = kernel_wait_end(c, now, s->last_done[k]) - now;
      break;
    }
    case HS_LOOP:
    case HS_END: {
      uint32_t next = np_loop_step(s->loop, &s->depth, st->kind == HS_LOOP, st->count,
                                   (uint32_t)s->pc);
      if (next == UINT32_MAX)
        g_error("%s: host step %zu: a loop of %u iterations at depth %u, or an end outside "
                "any", c->name, s->pc, st->count, s->depth);
      s->pc = next;
      continue; /* no time, no event */
    }
    case HS_WAIT_FLAG:
      s->burst = 0;
      check_flag(c, st->flag);
      if (s->flags[st->flag] < flag_want(s, st)) {
        s->wait = MW_FLAG;
        s->wait_id = st->flag;
        s->wait_start = now;
        return;
      }
      if (st->stream_sync) { /* met already: noticed as a kernel's completion (flag_update) */
        d = kernel_wait_end(c, now, s->flag_at[st->flag]) - now;
        break;
      }
      if (st->two_sided) {
        d = cfg->recv;
        spend(c, CAT_RECV, now, d);
      }
      break;
    default: g_error("%s: host step of unknown kind %u", c->name, st->kind);
    }
    s->pc++;
    if (d > 0) {
      sim_schedule(c, d, EV_MAIN, 0);
      return;
    }
  }
  if (s->done_at < 0) {
    s->done_at = now;
    result_check(c, now);
  }
}

/* The main thread's wait is over; it goes on at AT (>= now). */
static void main_resume(struct sim_comp *c, sim_time at) {
  struct cpu_state *s = c->state;
  s->wait = MW_NONE;
  s->pc++;
  sim_schedule(c, at - sim_now(c->eng), EV_MAIN, 0);
}

static void kernel_done(struct sim_comp *c, uint32_t k) {
  struct cpu_state *s = c->state;
  check_kernel(c, k);
  sim_time now = sim_now(c->eng);
  s->completed[k]++;
  s->last_done[k] = now;
  uint8_t q = s->kernel_queue[k];
  s->queued[q]--;
  s->outstanding--;
  /* After the program: noticed as if the thread waited from its end, and
   * as late (drawn only when due, so that the stream's draws stay the
   * waits'). */
  if (result_due(s))
    result_check(c, notice_time(c->config, s->done_at, now) + wake_lateness(c, s->done_at, now));
  const struct np_give *give = s->prog->give;
  if (give && give->kernel_done) give->kernel_done(give->ctx, s->node, k); /* its slot is free */
  if (s->wait == MW_QUEUE && s->wait_id == q) { /* the blocked launch goes on */
    spend(c, CAT_WAIT_KERNEL, s->wait_start, now - s->wait_start);
    s->wait = MW_NONE;
    sim_schedule(c, 0, EV_MAIN, 0);
    return;
  }
  if (s->g) {
    graph_kernel_done(c, k);
    return;
  }
  if (s->chain) { /* graph_kernel_done */
    if (s->completed[k] < s->launched[k]) return;
    if (s->chain_on && s->chain_at == CH_KERNEL && chain_step(s)->kernel == k)
      chain_kernel_seen(c, s->chain_since, now);
    chain_run(c);
    return;
  }
  if (s->wait == MW_KERNEL && s->wait_id == k && s->completed[k] >= s->launched[k])
    main_resume(c, kernel_wait_end(c, s->wait_start, now));
}

/* The NIC holds nic.triggered_ops of the host's registrations (ROOM
 * false), or again fewer: a registration waiting for room goes on, its
 * wait spent in the call (register_time). */
static void nic_room(struct sim_comp *c, bool room) {
  struct cpu_state *s = c->state;
  s->nic_full = !room;
  if (!room || s->wait != MW_NIC) return;
  spend(c, CAT_REGISTER, s->wait_start, sim_now(c->eng) - s->wait_start);
  s->wait = MW_NONE;
  sim_schedule(c, 0, EV_MAIN, 0);
}

static void flag_update(struct sim_comp *c, uint32_t flag, uint32_t inc) {
  const struct cpu_config *cfg = c->config;
  struct cpu_state *s = c->state;
  check_flag(c, flag);
  s->flags[flag] += inc;
  s->flag_at[flag] = sim_now(c->eng);
  s->flag_stamp[flag] = s->g ? s->g->stamp : 0;
  if (s->g) {
    graph_flag(c, flag);
    return;
  }
  if (s->chain) { /* graph_flag */
    if (s->chain_on && s->chain_at == CH_FLAG && chain_step(s)->flag == flag &&
        s->flags[flag] >= chain_step(s)->value)
      chain_flag_met(c);
    chain_run(c);
    return;
  }
  if (s->wait != MW_FLAG || s->wait_id != flag) return;
  const struct hstep *st = &s->prog->host[s->pc - s->prog->host_base];
  if (s->flags[flag] < flag_want(s, st)) return;
  sim_time now = sim_now(c->eng), d = st->two_sided ? cfg->recv : 0;
  if (st->stream_sync) { /* a copy's completion: a stream synchronize's wait */
    main_resume(c, kernel_wait_end(c, s->wait_start, now));
    return;
  }
  spend(c, CAT_WAIT_FLAG, s->wait_start, now - s->wait_start);
  spend(c, CAT_RECV, now, d);
  main_resume(c, now + d);
}


/* ---- helper threads ---- */

static sim_time helper_tick(const struct cpu_config *cfg, sim_time t) {
  sim_time p = cfg->helper_poll_interval;
  return p > 0 ? (t + p - 1) / p * p : t;
}

/* Request for NIC command CMD arrived now: the helper that can take it
 * first (lowest index on ties) serves it. */
static void host_request(struct sim_comp *c, uint32_t cmd) {
  const struct cpu_config *cfg = c->config;
  struct cpu_state *s = c->state;
  if (s->n_helpers == 0) g_error("%s: a GPU host request but cpu.helper_threads is 0", c->name);
  sim_time now = sim_now(c->eng), take = SIM_TIME_MAX;
  uint32_t best = 0;
  for (uint32_t i = 0; i < s->n_helpers; i++) {
    sim_time t = helper_tick(cfg, s->helper_free[i] > now ? s->helper_free[i] : now);
    if (t < take) {
      take = t;
      best = i;
    }
  }
  s->helper_free[best] = take + cfg->helper_service;
  s->host_requests++;
  s->helper_wait += take - now;
  if (take - now > s->helper_wait_max) s->helper_wait_max = take - now;
  s->helper_busy += cfg->helper_service;
  sim_cp_pre(c->eng, CP_WAITING, take - now); /* the next tick of a free helper */
  sim_cp_cat(c->eng, CP_HOST_STACK);
  if (G_UNLIKELY(c->traced)) {
    if (s->helper_track[best] < 0) {
      char sub[24];
      g_snprintf(sub, sizeof sub, "helper%u", best + 1);
      s->helper_track[best] = sim_track_sub(c, sub);
    }
    cpu_span(c, s->helper_track[best], "service", take, take + cfg->helper_service);
  }
  cpu_send(c, s->helper_free[best] - now, PK_NIC_CMD, DEV_NIC, 0, cmd, 0, NULL, 0);
}

/* ---- the component ---- */

static void cpu_init(struct sim_comp *c) {
  struct cpu_state *s = c->state;
  if (s->chain) { /* step 0 is ready at the start */
    s->pc = (size_t)-1;
    chain_complete(c);
    chain_run(c);
    return;
  }
  if (!s->g) {
    main_run(c);
    return;
  }
  s->g->stamp = 1; /* the start's moment */
  for (uint32_t i = 0; i < s->g->n_added; i++)
    if (s->g->sl[i].pending == 0) g_array_append_val(s->g->work, i);
  if (!s->g->src && s->prog->n_host == 0) {
    s->done_at = 0;
    result_check(c, 0);
  }
  graph_run(c);
}

static void cpu_handle(struct sim_comp *c, const struct sim_event *ev) {
  if (((struct cpu_state *)c->state)->g) ((struct cpu_state *)c->state)->g->stamp++;
  if (ev->port == SIM_PORT_SELF) {
    struct cpu_state *s = c->state;
    if (s->chain && (ev->kind == EV_MAIN || ev->kind == EV_DONE)) {
      chain_complete(c);
      chain_run(c);
    } else if (ev->kind == EV_MAIN && !s->g) {
      main_run(c);
    } else if (ev->kind == EV_MAIN) {
      uint32_t i = (uint32_t)s->g->running;
      s->g->running = -1;
      graph_complete(c, i);
      graph_run(c);
    } else if (ev->kind == EV_DONE && s->g) {
      graph_complete(c, (uint32_t)ev->data);
      graph_run(c);
    } else {
      g_error("%s: unknown self event %u", c->name, ev->kind);
    }
    return;
  }
  struct pmsg m = *(struct pmsg *)sim_payload(c->eng, ev->data);
  sim_payload_free(c->eng, ev->data);
  switch (m.kind) {
  case PK_KERNEL_DONE: kernel_done(c, m.a); break;
  case PK_HOST_REQUEST: host_request(c, m.a); break;
  case PK_FLAG: flag_update(c, m.a, m.b); break;
  case PK_NIC_ROOM: nic_room(c, m.a != 0); break;
  default: g_error("%s: unexpected message kind %u from the bus", c->name, m.kind);
  }
}

const struct sim_out_decl cpu_outs[] = {
    [CPU_OUT_CORES_HELD] = OUT(cores_held, UNIT_NONE,
                               "cores the node's program holds: the main thread and its helpers"),
    [CPU_OUT_MAIN_DONE] = OUT(main_done, UNIT_TIME,
                              "when the main thread ended its host program; -1: it never did"),
    [CPU_OUT_RESULT_AT] = OUT(result_at, UNIT_TIME,
                              "when the rank's result was usable by its host (the end of a run): "
                              "its program ended and every kernel it launched completed and was "
                              "noticed (a kernel still running at the program's end noticed as by "
                              "a wait from then: poll or interrupt); -1: never"),
    [CPU_OUT_STUCK_OP] = OUT(stuck_op, UNIT_NONE,
                             "the program op + 1 of the first host step that never ended; 0: none"),
    [CPU_OUT_LAUNCHES] = OUT(launches, UNIT_NONE, "kernel launches submitted"),
    [CPU_OUT_NIC_CMDS] = OUT(nic_cmds, UNIT_NONE,
                             "commands built and posted to the NIC (sends, triggered puts)"),
    [CPU_OUT_KERNEL_WAITS] = OUT(kernel_waits, UNIT_NONE, "waits for a kernel to complete"),
    [CPU_OUT_LAUNCH_BLOCKS] = OUT(launch_blocks, UNIT_NONE,
                                  "launches that found their queue full (launch_queue_depth)"),
    [CPU_OUT_COMPUTE_TIME] = OUT(compute_time, UNIT_TIME, "main thread: host compute steps"),
    [CPU_OUT_LAUNCH_TIME] = OUT(launch_time, UNIT_TIME, "main thread: submitting launches"),
    [CPU_OUT_BUILD_TIME] = OUT(build_time, UNIT_TIME, "main thread: building NIC commands"),
    [CPU_OUT_REGISTER_TIME] = OUT(register_time, UNIT_TIME,
                                  "main thread: registering triggered operations"),
    [CPU_OUT_SEND_TIME] = OUT(send_time, UNIT_TIME, "main thread: the host stack's sends"),
    [CPU_OUT_RECV_TIME] = OUT(recv_time, UNIT_TIME, "main thread: the host stack's receives"),
    [CPU_OUT_WAIT_KERNEL_TIME] = OUT(wait_kernel_time, UNIT_TIME,
                                     "main thread: waiting for kernels to complete"),
    [CPU_OUT_SWITCH_TIME] = OUT(switch_time, UNIT_TIME,
                                "main thread: context switches after an interrupt"),
    [CPU_OUT_WAIT_FLAG_TIME] = OUT(wait_flag_time, UNIT_TIME,
                                   "main thread: waiting on flags in host memory"),
    [CPU_OUT_HOST_REQUESTS] = OUT(host_requests, UNIT_NONE,
                                  "GPU requests served by helper threads"),
    [CPU_OUT_HELPER_SERVICE_TIME] = OUT(helper_service_time, UNIT_TIME,
                                        "helper threads busy serving requests, summed"),
    [CPU_OUT_HELPER_WAIT_TIME] = OUT(helper_wait_time, UNIT_TIME,
                                     "requests waiting for a helper thread (its poll), summed"),
    [CPU_OUT_HELPER_WAIT_MAX] = OUT(helper_wait_max, UNIT_TIME,
                                    "the longest a request waited for a helper thread"),
};
SIM_OUT_GROUP(cpu_outputs, "cpu", "node<i>.cpu.KEY; by kind node.cpu.KEY", cpu_outs,
              CPU_OUT_COUNT);

static void cpu_finish(struct sim_comp *c, struct sim_report *r) {
  struct cpu_state *s = c->state;
  sim_out_int(r, c, CPU_OUT_CORES_HELD, 1 + (int64_t)s->n_helpers);
  sim_out_int(r, c, CPU_OUT_MAIN_DONE, s->done_at);
  sim_out_int(r, c, CPU_OUT_RESULT_AT, s->result_at);
  /* The program op (+1) of the first host step that never ended, 0: none. */
  uint32_t stuck = s->g       ? graph_stuck(s)
                   : s->chain ? (s->chain_on ? chain_step(s)->op : 0)
                   : (s->pc < s->prog->n_host ? s->prog->host[s->pc - s->prog->host_base].op : 0);
  sim_out_int(r, c, CPU_OUT_STUCK_OP, stuck);
  sim_out_int(r, c, CPU_OUT_LAUNCHES, (int64_t)s->launches);
  sim_out_int(r, c, CPU_OUT_NIC_CMDS, (int64_t)s->nic_cmds);
  sim_out_int(r, c, CPU_OUT_KERNEL_WAITS, (int64_t)s->kernel_waits);
  sim_out_int(r, c, CPU_OUT_LAUNCH_BLOCKS, (int64_t)s->launch_blocks);
  for (int i = 0; i < N_CAT; i++) sim_out_int(r, c, CPU_OUT_COMPUTE_TIME + (unsigned)i, s->time[i]);
  sim_out_int(r, c, CPU_OUT_HOST_REQUESTS, (int64_t)s->host_requests);
  sim_out_int(r, c, CPU_OUT_HELPER_SERVICE_TIME, s->helper_busy);
  sim_out_int(r, c, CPU_OUT_HELPER_WAIT_TIME, s->helper_wait);
  sim_out_int(r, c, CPU_OUT_HELPER_WAIT_MAX, s->helper_wait_max);
  ph_add(r, PH_LAUNCH, s->time[CAT_LAUNCH]);
  ph_add(r, PH_CPU_COMPUTE, s->time[CAT_COMPUTE]);
  ph_add(r, PH_SWITCH, s->time[CAT_SWITCH]);
  ph_add(r, PH_HOST_STACK, s->time[CAT_BUILD] + s->time[CAT_REGISTER] + s->time[CAT_SEND] +
                               s->time[CAT_RECV]);
  ph_add(r, PH_WAITING, s->time[CAT_WAIT_FLAG] + s->helper_wait);
}

static void cpu_destroy(struct sim_comp *c) {
  struct cpu_state *s = c->state;
  g_free(s->flags);
  g_free(s->flag_at);
  g_free(s->flag_stamp);
  g_free(s->launched);
  g_free(s->completed);
  g_free(s->kernel_queue);
  g_free(s->last_done);
  g_free(s->helper_free);
  g_free(s->helper_track);
  graph_free(s->g);
}

const struct sim_type cpu_type = {
    .name = "cpu",
    .doc = "a host CPU: main thread, control-flow switch, helper threads",
    .params = &cpu_params,
    .ports = cpu_ports,
    .n_ports = 1,
    .state_size = sizeof(struct cpu_state),
    .init = cpu_init,
    .handle = cpu_handle,
    .outputs = &cpu_outputs,
    .finish = cpu_finish,
    .destroy = cpu_destroy,
    .port_payloads = true,
    .cp_cat = CP_HOST_STACK,
    .cp_link = CP_BUS,
};

struct sim_comp *cpu_add(struct sim_engine *e, const char *name, const struct cpu_config *cfg,
                         const struct nodeprog *prog, uint32_t node) {
  static const struct nodeprog empty = {0};
  char *err = NULL;
  g_assert(cfg && cfg->cores >= 1 && cfg->helper_threads >= 0);
  if (!cpu_config_check(cfg, &err)) g_error("cpu_add %s: %s", name, err);
  struct sim_comp *c = sim_add(e, &cpu_type, name, cfg);
  struct cpu_state *s = c->state;
  s->prog = prog ? prog : &empty;
  s->node = node;
  s->done_at = -1;
  s->result_at = -1;
  s->main_track = -1;
  s->n_words = s->prog->n_flags + 1;
  s->flags = g_new0(uint64_t, s->n_words);
  s->flag_at = g_new(sim_time, s->n_words);
  s->flag_stamp = g_new0(uint64_t, s->n_words);
  for (size_t f = 0; f < s->n_words; f++) s->flag_at[f] = -1;
  size_t nk = s->n_kwords = s->prog->n_kernels ? s->prog->n_kernels : 1;
  s->launched = g_new0(uint32_t, nk);
  s->completed = g_new0(uint32_t, nk);
  s->kernel_queue = g_new0(uint8_t, nk);
  s->last_done = g_new0(sim_time, nk);
  if (s->prog->host_deps || s->prog->source) s->g = graph_new(s->prog);
  s->chain = !s->g && s->prog->chain && s->prog->seq;
  s->chain_idle = 0; /* the graph's thread: idle from the start */
  s->n_helpers = (uint32_t)cfg->helper_threads;
  s->helper_free = g_new0(sim_time, s->n_helpers ? s->n_helpers : 1);
  s->helper_track = g_new(int, s->n_helpers ? s->n_helpers : 1);
  for (uint32_t i = 0; i < s->n_helpers; i++) s->helper_track[i] = -1;
  return c;
}
