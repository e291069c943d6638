// Thin shim over libmicrohttpd (Debian libmicrohttpd-dev 0.9.75). No request logic lives here:
// only what Swift cannot call directly (C variadic functions, a va_list callback).
// Every callback that carries application behaviour is a Swift `@convention(c)` function.
#ifndef LINKWELL_CMICROHTTPD_SHIM_H
#define LINKWELL_CMICROHTTPD_SHIM_H

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/socket.h>
#include <microhttpd.h>

/// Where libmicrohttpd's formatted log lines go: a Swift `@convention(c)` function plus its context.
typedef void (*CMicroHTTPD_LogSink)(void *context, const char *message);

struct CMicroHTTPD_Logger {
  CMicroHTTPD_LogSink sink;
  void *context;
};

// MHD_LogCallback receives a va_list, which a Swift function cannot take portably: format it
// here with vsnprintf and hand Swift a finished, NUL-terminated line.
static inline void CMicroHTTPD_format_log(void *cls, const char *format, va_list arguments) {
  const struct CMicroHTTPD_Logger *logger = (const struct CMicroHTTPD_Logger *) cls;
  char line[1024];
  if (NULL == logger || NULL == logger->sink || NULL == format) return;
  (void) vsnprintf(line, sizeof line, format, arguments);
  logger->sink(logger->context, line);
}

// MHD_start_daemon is variadic, which Swift cannot call: pass every option through one
// MHD_OPTION_ARRAY (terminated by MHD_OPTION_END) and install the logger first, as MHD asks.
// The port argument is 0 because the caller always binds with MHD_OPTION_SOCK_ADDR.
// `accept_policy` (may be NULL) sees every accepted connection before MHD sets it up.
static inline struct MHD_Daemon *CMicroHTTPD_start_daemon(unsigned int flags,
                                                          MHD_AcceptPolicyCallback accept_policy,
                                                          void *accept_policy_context,
                                                          MHD_AccessHandlerCallback handler,
                                                          void *handler_context,
                                                          const struct CMicroHTTPD_Logger *logger,
                                                          struct MHD_OptionItem *options) {
  if (NULL == logger)
    return MHD_start_daemon(flags, 0, accept_policy, accept_policy_context, handler, handler_context,
                            MHD_OPTION_ARRAY, options, MHD_OPTION_END);
  return MHD_start_daemon(flags, 0, accept_policy, accept_policy_context, handler, handler_context,
                          MHD_OPTION_EXTERNAL_LOGGER, &CMicroHTTPD_format_log, (void *) logger,
                          MHD_OPTION_ARRAY, options, MHD_OPTION_END);
}

// MHD_get_connection_info is variadic: fixed-arity wrapper for the client's socket address.
static inline const struct sockaddr *CMicroHTTPD_get_client_address(struct MHD_Connection *connection) {
  const union MHD_ConnectionInfo *info =
      MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
  return NULL == info ? NULL : info->client_addr;
}

// MHD_get_connection_info is variadic: fixed-arity wrapper for the status MHD queued
// (including the 4xx/5xx replies MHD sends on its own); 0 when nothing was queued.
static inline unsigned int CMicroHTTPD_get_http_status(struct MHD_Connection *connection) {
  const union MHD_ConnectionInfo *info =
      MHD_get_connection_info(connection, MHD_CONNECTION_INFO_HTTP_STATUS);
  return NULL == info ? 0 : info->http_status;
}

// MHD_get_connection_info is variadic: fixed-arity wrapper for the connection's socket; -1 when unknown.
static inline int CMicroHTTPD_get_connection_fd(struct MHD_Connection *connection) {
  const union MHD_ConnectionInfo *info =
      MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
  return NULL == info ? -1 : (int) info->connect_fd;
}

// MHD_get_connection_info is variadic: fixed-arity wrapper for the pointer the application set in
// MHD_OPTION_NOTIFY_CONNECTION's callback for this socket; NULL when none.
static inline void *CMicroHTTPD_get_socket_context(struct MHD_Connection *connection) {
  const union MHD_ConnectionInfo *info =
      MHD_get_connection_info(connection, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
  return NULL == info ? NULL : info->socket_context;
}

// MHD_get_connection_info is variadic: fixed-arity wrapper for the size in bytes of the request
// head (request line, header lines and their line ends) MHD parsed; 0 when not yet known.
static inline size_t CMicroHTTPD_get_request_head_size(struct MHD_Connection *connection) {
  const union MHD_ConnectionInfo *info =
      MHD_get_connection_info(connection, MHD_CONNECTION_INFO_REQUEST_HEADER_SIZE);
  return NULL == info ? 0 : info->header_size;
}

// MHD_get_daemon_info is variadic: fixed-arity wrapper for the number of open connections
// (summed over the thread pool's workers by MHD).
static inline unsigned int CMicroHTTPD_get_current_connections(struct MHD_Daemon *daemon) {
  const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_CURRENT_CONNECTIONS);
  return NULL == info ? 0 : info->num_connections;
}

// MHD_get_daemon_info is variadic: fixed-arity wrapper for the port actually bound (port 0 = OS picks).
static inline uint16_t CMicroHTTPD_get_bind_port(struct MHD_Daemon *daemon) {
  const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_BIND_PORT);
  return NULL == info ? 0 : info->port;
}

// Connections waiting in a listening TCP socket's accept queue (Linux: TCP_INFO's tcpi_unacked
// on a listening socket); -1 when unknown.
#include <netinet/in.h>
#include <netinet/tcp.h>
static inline int CMicroHTTPD_accept_queue_length(int fd) {
  struct tcp_info info;
  socklen_t length = sizeof info;
  if (0 != getsockopt(fd, IPPROTO_TCP, TCP_INFO, &info, &length)) return -1;
  return (int) info.tcpi_unacked;
}

// The daemon's listening socket (-1 without one), for accepting beside MHD (BacklogDrainer).
static inline int CMicroHTTPD_get_listen_fd(struct MHD_Daemon *daemon) {
  const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_LISTEN_FD);
  return NULL == info ? -1 : (int) info->listen_fd;
}

#endif
