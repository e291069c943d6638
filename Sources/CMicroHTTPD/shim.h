// Thin shim over libmicrohttpd (Debian libmicrohttpd-dev). No request logic lives here:
// only what Swift cannot call directly (variadic functions, macros).
#ifndef LINKWELL_CMICROHTTPD_SHIM_H
#define LINKWELL_CMICROHTTPD_SHIM_H
#include <microhttpd.h>
#endif
