// librsvg (SVG → cairo) and cairo (→ PNG) for the generated preview cards. Only the calls
// PreviewCardRenderer makes; no logic here.
//
// librsvg is loaded with dlopen at the first card drawn, not linked: a server that never draws
// a card never maps librsvg and the ~7 MB of its dependencies (cairo, pango, glib, fontconfig,
// harfbuzz, libxml2). Because it is not linked, its headers (which need pkg-config's include
// paths for glib) are not used either: the few types below are declared here, with the layout
// and values of Debian's headers — tests/live/test_lazy_libraries.py compiles them against the
// real headers. cairo and glib are librsvg's dependencies, found through its handle.
#ifndef LINKWELL_CRSVG_SHIM_H
#define LINKWELL_CRSVG_SHIM_H
#include <dlfcn.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#define LINKWELL_RSVG_SONAME "librsvg-2.so.2"

typedef unsigned long gsize;               // glib: gsize
typedef struct _GError {                   // glib: GError
    uint32_t domain;
    int code;
    char *message;
} GError;
typedef struct _RsvgHandle RsvgHandle;     // opaque
typedef struct _RsvgRectangle {            // librsvg ≥ 2.46
    double x;
    double y;
    double width;
    double height;
} RsvgRectangle;
typedef struct _cairo cairo_t;             // opaque
typedef struct _cairo_surface cairo_surface_t;
typedef enum _cairo_status { CAIRO_STATUS_SUCCESS = 0, CAIRO_STATUS_WRITE_ERROR = 11 } cairo_status_t;
typedef enum _cairo_format { CAIRO_FORMAT_ARGB32 = 0 } cairo_format_t;
typedef cairo_status_t (*cairo_write_func_t)(void *closure, const unsigned char *data, unsigned int length);

// The library handle, opened once (NULL when it cannot be loaded; then dlerror() says why).
static inline void *linkwell_rsvg_handle(void) {
    static _Atomic(void *) handle = NULL;
    void *h = atomic_load_explicit(&handle, memory_order_acquire);
    if (h == NULL) {
        h = dlopen(LINKWELL_RSVG_SONAME, RTLD_NOW | RTLD_LOCAL);
        if (h != NULL) atomic_store_explicit(&handle, h, memory_order_release);
    }
    return h;
}

// NULL when librsvg and every function below are found, else why not.
static inline const char *linkwell_rsvg_load_error(void) {
    static const char *const names[] = {
        "rsvg_handle_new_from_data", "rsvg_handle_render_document", "g_object_unref", "g_error_free",
        "cairo_image_surface_create", "cairo_surface_destroy", "cairo_create", "cairo_destroy",
        "cairo_surface_flush", "cairo_surface_write_to_png_stream",
    };
    void *h = linkwell_rsvg_handle();
    if (h == NULL) {
        const char *why = dlerror();
        return why != NULL ? why : LINKWELL_RSVG_SONAME " cannot be loaded";
    }
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        if (dlsym(h, names[i]) == NULL) return names[i];
    }
    return NULL;
}

#define LINKWELL_RSVG_FN(ret, name, params) \
    static _Atomic(void *) slot = NULL; \
    void *f = atomic_load_explicit(&slot, memory_order_acquire); \
    if (f == NULL) { f = dlsym(linkwell_rsvg_handle(), #name); atomic_store_explicit(&slot, f, memory_order_release); } \
    ret (*fn) params = (ret (*) params)f;

static inline RsvgHandle *lw_rsvg_handle_new_from_data(const uint8_t *data, gsize length, GError **error) {
    LINKWELL_RSVG_FN(RsvgHandle *, rsvg_handle_new_from_data, (const uint8_t *, gsize, GError **)) return fn(data, length, error);
}
static inline int lw_rsvg_handle_render_document(RsvgHandle *handle, cairo_t *cr, const RsvgRectangle *viewport, GError **error) {
    LINKWELL_RSVG_FN(int, rsvg_handle_render_document, (RsvgHandle *, cairo_t *, const RsvgRectangle *, GError **))
    return fn(handle, cr, viewport, error);
}
static inline void lw_g_object_unref(RsvgHandle *object) { LINKWELL_RSVG_FN(void, g_object_unref, (void *)) fn(object); }
static inline void lw_g_error_free(GError *error) { LINKWELL_RSVG_FN(void, g_error_free, (GError *)) fn(error); }
static inline cairo_surface_t *lw_cairo_image_surface_create(cairo_format_t format, int width, int height) {
    LINKWELL_RSVG_FN(cairo_surface_t *, cairo_image_surface_create, (cairo_format_t, int, int)) return fn(format, width, height);
}
static inline void lw_cairo_surface_destroy(cairo_surface_t *s) { LINKWELL_RSVG_FN(void, cairo_surface_destroy, (cairo_surface_t *)) fn(s); }
static inline cairo_t *lw_cairo_create(cairo_surface_t *s) { LINKWELL_RSVG_FN(cairo_t *, cairo_create, (cairo_surface_t *)) return fn(s); }
static inline void lw_cairo_destroy(cairo_t *cr) { LINKWELL_RSVG_FN(void, cairo_destroy, (cairo_t *)) fn(cr); }
static inline void lw_cairo_surface_flush(cairo_surface_t *s) { LINKWELL_RSVG_FN(void, cairo_surface_flush, (cairo_surface_t *)) fn(s); }
static inline cairo_status_t lw_cairo_surface_write_to_png_stream(cairo_surface_t *s, cairo_write_func_t write, void *closure) {
    LINKWELL_RSVG_FN(cairo_status_t, cairo_surface_write_to_png_stream, (cairo_surface_t *, cairo_write_func_t, void *))
    return fn(s, write, closure);
}
#endif
