#pragma once
// The HTTP side of the viewer: token check on every request, the embedded
// front end, and /api/<endpoint> answered by ViewerApi. Nothing is read from
// disk on behalf of a request, so no request can name a file.

#include <memory>
#include <string>
#include <vector>

#include "api.h"
#include "assets.h"

namespace httplib {
class Server;
}

namespace orrery::viewer {

/// Where and how the server listens.
struct ServerOptions {
  std::string host = "127.0.0.1";
  int port = 0;  ///< 0: any free port
  std::string token;
};

/// The viewer's HTTP server (cpp-httplib), serving one ViewerApi.
class ViewerServer {
 public:
  ViewerServer(std::shared_ptr<ViewerApi> api, std::vector<Asset> assets, ServerOptions options);
  ~ViewerServer();
  ViewerServer(const ViewerServer&) = delete;
  ViewerServer& operator=(const ViewerServer&) = delete;

  /// Binds the socket; returns the port. Throws orrery::Error if it cannot.
  int bind();
  /// Starts the worker threads now instead of in run() (optional).
  void start_workers();
  /// Serves until stop() (call after bind()).
  void run();
  void stop();
  /// The address to open, token included.
  [[nodiscard]] std::string url() const;

 private:
  void install_routes();
  [[nodiscard]] bool authorized(const std::string& query_token, const std::string& header_token,
                                const std::string& cookie_header) const;
  [[nodiscard]] std::string cookie_name() const;

  std::shared_ptr<ViewerApi> api_;
  std::vector<Asset> assets_;
  ServerOptions options_;
  std::unique_ptr<httplib::Server> http_;
};

}  // namespace orrery::viewer
