// glibc keeps memory that a program frees inside its heaps (arenas), for the next allocations:
// after a burst of requests, or a worker thread that exited, an idle Kith server held 10 to 18 MB
// there (docs/decisions.md, "an idle server's memory"). malloc_trim(0) hands the whole free pages
// of every arena back to the system. Node has no call for it, hence this addon.
#include <node_api.h>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

// trim(): true if memory was given back, false if none could be (or on a C library without
// malloc_trim, where the call does nothing).
static napi_value Trim(napi_env env, napi_callback_info info) {
  (void)info;
  int released = 0;
#if defined(__GLIBC__)
  released = malloc_trim(0);
#endif
  napi_value result;
  napi_get_boolean(env, released != 0, &result);
  return result;
}

// supported(): whether the C library has malloc_trim.
static napi_value Supported(napi_env env, napi_callback_info info) {
  (void)info;
  napi_value result;
#if defined(__GLIBC__)
  napi_get_boolean(env, 1, &result);
#else
  napi_get_boolean(env, 0, &result);
#endif
  return result;
}

static napi_value Init(napi_env env, napi_value exports) {
  napi_value fn;
  napi_create_function(env, "trim", NAPI_AUTO_LENGTH, Trim, NULL, &fn);
  napi_set_named_property(env, exports, "trim", fn);
  napi_create_function(env, "supported", NAPI_AUTO_LENGTH, Supported, NULL, &fn);
  napi_set_named_property(env, exports, "supported", fn);
  return exports;
}

NAPI_MODULE(NODE_GYP_MODULE_NAME, Init)
