// Only a header (include/CFuzzerDriver.h); SwiftPM needs one source file per C target.
#include "CFuzzerDriver.h"
