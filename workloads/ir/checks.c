/* Scenario checks of workloads and policies (checks.h). */
#include "checks.h"

#include "library.h"

#include <stdarg.h>

struct hw_config wl_hw_of(const struct scenario *sc) {
  return (struct hw_config){.gpu = sc_hardware(sc, &gpu_params),
                            .cpu = sc_hardware(sc, &cpu_params),
                            .bus = sc_hardware(sc, &bus_params),
                            .nic = sc_hardware(sc, &nic_params),
                            .net = sc_hardware(sc, &net_params),
                            .comm = sc_hardware(sc, &comm_params)};
}

char *wl_error_at(const struct scenario *sc, const char *path, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  char *msg = g_strdup_vprintf(fmt, ap);
  va_end(ap);
  char *e = sc ? sc_error_at(sc_node_near(sc->root, path), path, "%s", msg)
               : g_strdup_printf("%s: %s", path, msg);
  g_free(msg);
  return e;
}

bool wl_check_at_most(const struct scenario *sc, const char *path, const char *what,
                       uint64_t value, uint64_t max, char **err) {
  if (value <= max) return true;
  *err = wl_error_at(sc, path, "expected %s at most %" G_GUINT64_FORMAT ", got %" G_GUINT64_FORMAT,
                      what, max, value);
  return false;
}

uint64_t wl_mul_sat(uint64_t a, uint64_t b) {
  return (a && b > UINT64_MAX / a) ? UINT64_MAX : a * b;
}

bool wl_check_nodes(const struct scenario *sc, const struct hw_config *hw, uint64_t need,
                     const char *what, char **err) {
  if ((uint64_t)hw->net->nodes >= need) return true;
  *err = wl_error_at(sc, "hardware.network.nodes",
                      "expected at least %" G_GUINT64_FORMAT " nodes for %s, got %" G_GINT64_FORMAT,
                      need, what, hw->net->nodes);
  return false;
}
