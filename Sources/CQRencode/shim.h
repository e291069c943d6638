// Debian libqrencode-dev, reached through this module map for the landing page's QR code.
#ifndef LINKWELL_CQRENCODE_SHIM_H
#define LINKWELL_CQRENCODE_SHIM_H
#include <qrencode.h>
#endif
