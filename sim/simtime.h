/* Simulated time: a signed 64-bit count of picoseconds.
 * 2^63 ps is about 106 days of simulated time, far beyond any scenario. */
#ifndef SIM_SIMTIME_H
#define SIM_SIMTIME_H

#include <stdint.h>

typedef int64_t sim_time;

#define SIM_PS ((sim_time)1)
#define SIM_NS ((sim_time)1000)
#define SIM_US ((sim_time)1000000)
#define SIM_MS ((sim_time)1000000000)
#define SIM_S ((sim_time)1000000000000)
#define SIM_TIME_MAX INT64_MAX

#endif
