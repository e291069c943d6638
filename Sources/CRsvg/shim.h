// librsvg (SVG → cairo) and cairo (→ PNG) for the generated preview cards. Only the calls
// PreviewCardRenderer makes; no logic here.
#include <librsvg/rsvg.h>
#include <cairo.h>
