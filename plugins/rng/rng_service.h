/* The interface trnsim-rng exports as the service "rng.xorwow". */
#ifndef TRNSIM_RNG_SERVICE_H
#define TRNSIM_RNG_SERVICE_H

#include "trnsim/service_rng.h"

extern const trn_rng_xorwow_service rng_xorwow_service;

#endif
