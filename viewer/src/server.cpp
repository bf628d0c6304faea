#include "server.h"

#include <httplib.h>

#include <new>
#include <system_error>
#include <utility>

#include "orrery/error.h"
#include "token.h"

namespace orrery::viewer {
namespace {

// With a charset parameter cpp-httplib does not compress the answer; its
// default (Brotli at the highest quality) costs seconds on a 10,000 call
// path tree, far more than sending it uncompressed over loopback.
constexpr const char* kJson = "application/json; charset=utf-8";
/// The largest request body accepted (docs/robustness.md): the page never sends
/// one. (cpp-httplib itself answers 414 to a request line beyond 8 KiB.)
constexpr std::size_t kMaxRequestBodyBytes = 64 * 1024;

// Headers that keep the page to itself: no framing, no sniffing, and no
// Referer that would leak the token to anything the page links to.
void add_safety_headers(httplib::Response& res) {
  res.set_header("X-Content-Type-Options", "nosniff");
  res.set_header("X-Frame-Options", "DENY");
  res.set_header("Referrer-Policy", "no-referrer");
  res.set_header("Content-Security-Policy",
                 "default-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; "
                 "connect-src 'self'; frame-ancestors 'none'");
}

void send_error(httplib::Response& res, int status, const std::string& path,
                const std::string& message) {
  res.status = status;
  if (path.rfind("/api/", 0) == 0) {
    res.set_content(nlohmann::json{{"error", message}}.dump(), kJson);
  } else {
    std::string html = "<!doctype html><meta charset=utf-8><title>orrery view</title>"
                       "<body style=\"font-family:sans-serif;margin:3em\"><h1>" +
                       std::to_string(status) + "</h1><p>";
    for (const char ch : message) {  // the message may quote user input
      if (ch == '<') html += "&lt;";
      else if (ch == '>') html += "&gt;";
      else if (ch == '&') html += "&amp;";
      else html += ch;
    }
    res.set_content(html + "</p></body>", "text/html; charset=utf-8");
  }
}

std::string cookie_value(const std::string& cookies, const std::string& name) {
  std::size_t pos = 0;
  while (pos < cookies.size()) {
    std::size_t end = cookies.find(';', pos);
    if (end == std::string::npos) end = cookies.size();
    std::string pair = cookies.substr(pos, end - pos);
    const std::size_t first = pair.find_first_not_of(' ');
    if (first != std::string::npos) pair.erase(0, first);
    if (pair.rfind(name + "=", 0) == 0) return pair.substr(name.size() + 1);
    pos = end + 1;
  }
  return {};
}

void send_out_of_memory(httplib::Response& res, const std::string& path) {
  send_error(res, 503, path,
             "Not enough memory for this request within the viewer's limit "
             "(orrery view --memory-limit): choose a smaller window or fewer ranks.");
}

}  // namespace

ViewerServer::ViewerServer(std::shared_ptr<ViewerApi> api, std::vector<Asset> assets,
                           ServerOptions options)
    : api_(std::move(api)),
      assets_(std::move(assets)),
      options_(std::move(options)),
      http_(std::make_unique<httplib::Server>()) {
  install_routes();
}

ViewerServer::~ViewerServer() = default;

std::string ViewerServer::cookie_name() const {
  return "orrery_token_" + std::to_string(options_.port);
}

bool ViewerServer::authorized(const std::string& query_token, const std::string& header_token,
                              const std::string& cookie_header) const {
  return tokens_equal(options_.token, query_token) || tokens_equal(options_.token, header_token) ||
         tokens_equal(options_.token, cookie_value(cookie_header, cookie_name()));
}

void ViewerServer::install_routes() {
  // Headers and body go out in separate writes; without this, Nagle's
  // algorithm and delayed ACKs add ~40 ms to every answer.
  http_->set_tcp_nodelay(true);
  // The viewer only answers GETs: a body beyond the limit is refused (413)
  // before anything is parsed or computed.
  http_->set_payload_max_length(kMaxRequestBodyBytes);
  http_->set_pre_routing_handler([this](const httplib::Request& req, httplib::Response& res) {
    add_safety_headers(res);
    if (authorized(req.get_param_value("token"), req.get_header_value("X-Orrery-Token"),
                   req.get_header_value("Cookie"))) {
      return httplib::Server::HandlerResponse::Unhandled;
    }
    send_error(res, 403, req.path,
               "Forbidden: open the address (with its token) that 'orrery view' printed.");
    return httplib::Server::HandlerResponse::Handled;
  });

  http_->Get(R"(/api/([a-z_]+))", [this](const httplib::Request& req, httplib::Response& res) {
    Params params;
    for (const auto& [key, value] : req.params) params[key] = value;
    try {
      res.set_content(api_->handle(req.matches[1].str(), params).dump(), kJson);
      res.set_header("Cache-Control", "no-store");
    } catch (const UsageError& e) {
      send_error(res, 400, req.path, e.what());
    } catch (const NotFoundError& e) {
      send_error(res, 404, req.path, e.what());
    } catch (const std::bad_alloc&) {
      send_out_of_memory(res, req.path);
    } catch (const std::system_error& e) {
      // A thread the request needed could not get its stack under the cap.
      if (e.code() == std::errc::resource_unavailable_try_again) {
        send_out_of_memory(res, req.path);
      } else {
        send_error(res, 500, req.path, e.what());
      }
    } catch (const std::exception& e) {
      send_error(res, 500, req.path, e.what());
    }
  });

  // Only the embedded files, looked up by exact name: a request cannot
  // reach anything else, whatever dots or slashes it holds.
  http_->Get(R"(/.*)", [this](const httplib::Request& req, httplib::Response& res) {
    const std::string name = req.path == "/" ? "index.html" : req.path.substr(1);
    for (const Asset& asset : assets_) {
      if (asset.path == name) {
        res.set_content(std::string(asset.body), std::string(asset.mime));
        if (name == "index.html" && !req.get_param_value("token").empty()) {
          // The page's scripts and styles then carry the token as a cookie.
          res.set_header("Set-Cookie",
                         cookie_name() + "=" + options_.token + "; Path=/; HttpOnly; SameSite=Strict");
        }
        return;
      }
    }
    send_error(res, 404, req.path, "Not found.");
  });
}

int ViewerServer::bind() {
  if (options_.port == 0) {
    options_.port = http_->bind_to_any_port(options_.host);
  } else if (!http_->bind_to_port(options_.host, options_.port)) {
    options_.port = -1;
  }
  if (options_.port <= 0) {
    throw Error("cannot listen on " + options_.host + ": the address or port is not available",
                kExitBadInput);
  }
  return options_.port;
}

void ViewerServer::start_workers() {
  // The worker threads start here, not in run(): a memory cap set between the
  // two (orrery view --memory-limit) limits what requests allocate, not
  // whether the server can start its threads. Call it after the signal mask
  // is set (StopOnSignal), which the threads inherit.
  auto* workers = new httplib::ThreadPool(CPPHTTPLIB_THREAD_POOL_COUNT);
  http_->new_task_queue = [workers]() mutable -> httplib::TaskQueue* {
    auto* queue = workers != nullptr ? workers : new httplib::ThreadPool(CPPHTTPLIB_THREAD_POOL_COUNT);
    workers = nullptr;
    return queue;
  };
}

void ViewerServer::run() { http_->listen_after_bind(); }

void ViewerServer::stop() { http_->stop(); }

std::string ViewerServer::url() const {
  const bool ipv6 = options_.host.find(':') != std::string::npos;
  const std::string host = ipv6 ? "[" + options_.host + "]" : options_.host;
  return "http://" + host + ":" + std::to_string(options_.port) + "/?token=" + options_.token;
}

}  // namespace orrery::viewer
