/* libFuzzer harness: the units parser (sim/units.h). Each input is parsed
 * as an integer and a real of every dimension; an integer that parses is
 * formatted and parsed back, which must give the same value. */
#include <glib.h>
#include <stdint.h>
#include <stdlib.h>

#include "units.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char *text = g_strndup((const char *)data, size);
  static const enum unit_dim dims[] = {UNIT_NONE, UNIT_TIME, UNIT_BANDWIDTH, UNIT_SIZE, UNIT_FREQ};
  for (size_t d = 0; d < G_N_ELEMENTS(dims); d++) {
    int64_t v;
    double x;
    char *err = NULL;
    if (units_parse_int(text, dims[d], &v, &err)) {
      char buf[64], *err2 = NULL;
      int64_t back;
      units_format(v, dims[d], buf, sizeof buf);
      if (!units_parse_int(buf, dims[d], &back, &err2) || back != v) abort(); /* round trip */
      g_free(err2);
    }
    g_free(err), err = NULL;
    units_parse_real(text, dims[d], &x, &err);
    g_free(err);
  }
  g_free(text);
  return 0;
}
