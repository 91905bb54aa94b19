/* Values with units, as written in scenarios: "1.5us", "100Gbps", "8MiB",
 * "1GHz", plain integers and floats. Each dimension has one base unit in
 * which values are stored: picoseconds, bits per second, bytes, hertz. */
#ifndef SIM_UNITS_H
#define SIM_UNITS_H

#include <stdbool.h>
#include <stdint.h>

enum unit_dim {
  UNIT_NONE,      /* plain number, no suffix allowed */
  UNIT_TIME,      /* ps ns us ms s            -> picoseconds */
  UNIT_BANDWIDTH, /* bps Kbps Mbps Gbps Tbps  -> bits per second (decimal) */
  UNIT_SIZE,      /* B KB MB GB (10^3), KiB MiB GiB (2^10) -> bytes */
  UNIT_FREQ,      /* Hz KHz MHz GHz           -> hertz */
};

/* Name of a dimension for messages: "a time", "a bandwidth", ... */
const char *units_dim_name(enum unit_dim dim);

/* Parses TEXT as an integer count of DIM's base unit. A number without a
 * unit is an error for a dimension with units ("1" is no time; "0" is
 * accepted, being 0 in every unit). The result must be a whole number of base
 * units (e.g. "1.5ps" is an error) and fit in int64. On error returns false
 * and sets *ERR to a newly allocated message of the form
 * "expected a time such as 1.5us, got 100Gbps" (free with g_free). */
bool units_parse_int(const char *text, enum unit_dim dim, int64_t *out, char **err);

/* Parses TEXT as a finite double in DIM's base unit. Same errors. */
bool units_parse_real(const char *text, enum unit_dim dim, double *out, char **err);

/* Writes VALUE (base units of DIM) in the shortest exact form with the largest
 * unit that keeps it readable, e.g. 1500000 ps -> "1.5us". Returns BUF. */
char *units_format(int64_t value, enum unit_dim dim, char *buf, int len);

#endif
