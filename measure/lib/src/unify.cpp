#include "unify.h"

#include <time.h>

#include <map>
#include <nlohmann/json.hpp>
#include <tuple>

namespace orrery::measure {
namespace {

using nlohmann::json;

json local_json(const LocalDefinitions& local, const std::string& host) {
  json regions = json::array();
  for (const RegionDef& r : local.regions()) {
    regions.push_back({r.name, r.file, r.line, static_cast<int>(r.paradigm), static_cast<int>(r.role)});
  }
  json comms = json::array();
  for (const CommDef& c : local.comms()) {
    comms.push_back({c.key_root, c.key_seq, c.name, static_cast<int>(c.kind), c.members,
                     c.parent == UINT32_MAX ? -1 : static_cast<int64_t>(c.parent), c.key_path});
  }
  return {{"host", host}, {"regions", regions}, {"comms", comms}};
}

/// Rank 0's side: assigns global ids in order of first appearance.
class Unifier {
 public:
  json add_rank(const json& rank, GlobalDefinitions& global) {
    json mapping = {{"regions", json::array()}, {"comms", json::array()}};
    global.hosts.push_back(rank.at("host").get<std::string>());
    for (const json& r : rank.at("regions")) {
      RegionDef def;
      def.name = r.at(0).get<std::string>();
      def.file = r.at(1).get<std::string>();
      def.line = r.at(2).get<uint32_t>();
      def.paradigm = static_cast<Paradigm>(r.at(3).get<int>());
      def.role = static_cast<RegionRole>(r.at(4).get<int>());
      auto key = std::make_tuple(def.name, def.file, def.line, static_cast<int>(def.paradigm));
      auto [it, added] = regions_.emplace(key, static_cast<uint32_t>(global.regions.size()));
      if (added) global.regions.push_back(std::move(def));
      mapping["regions"].push_back(it->second);
    }
    std::vector<uint32_t> local_to_global;
    for (const json& c : rank.at("comms")) {
      auto key = std::make_tuple(c.at(0).get<int32_t>(), c.at(1).get<uint32_t>(), c.at(6).get<std::string>());
      auto [it, added] = comms_.emplace(key, static_cast<uint32_t>(global.comms.size()));
      if (added) {
        CommDef def;
        def.key_root = std::get<0>(key);
        def.key_seq = std::get<1>(key);
        def.key_path = std::get<2>(key);
        def.name = c.at(2).get<std::string>();
        def.kind = static_cast<CommDef::Kind>(c.at(3).get<int>());
        def.members = c.at(4).get<std::vector<int>>();
        const int64_t parent = c.at(5).get<int64_t>();
        if (parent >= 0 && static_cast<std::size_t>(parent) < local_to_global.size()) {
          def.parent = local_to_global[static_cast<std::size_t>(parent)];
        }
        global.comms.push_back(std::move(def));
      }
      local_to_global.push_back(it->second);
      mapping["comms"].push_back(it->second);
    }
    return mapping;
  }

 private:
  std::map<std::tuple<std::string, std::string, uint32_t, int>, uint32_t> regions_;
  std::map<std::tuple<int32_t, uint32_t, std::string>, uint32_t> comms_;
};

std::vector<uint8_t> scatter_blobs(MPI_Comm comm, const std::vector<std::vector<uint8_t>>& blobs) {
  int rank = 0;
  int size = 1;
  PMPI_Comm_rank(comm, &rank);
  PMPI_Comm_size(comm, &size);
  std::vector<int> sizes(static_cast<std::size_t>(size), 0);
  std::vector<int> displs(static_cast<std::size_t>(size), 0);
  std::vector<uint8_t> all;
  if (rank == 0) {
    for (int r = 0; r < size; ++r) {
      sizes[static_cast<std::size_t>(r)] = static_cast<int>(blobs[static_cast<std::size_t>(r)].size());
      displs[static_cast<std::size_t>(r)] = static_cast<int>(all.size());
      all.insert(all.end(), blobs[static_cast<std::size_t>(r)].begin(), blobs[static_cast<std::size_t>(r)].end());
    }
  }
  int mine = 0;
  PMPI_Scatter(sizes.data(), 1, MPI_INT, &mine, 1, MPI_INT, 0, comm);
  std::vector<uint8_t> out(static_cast<std::size_t>(mine));
  PMPI_Scatterv(all.data(), sizes.data(), displs.data(), MPI_BYTE, out.data(), mine, MPI_BYTE, 0, comm);
  return out;
}

}  // namespace

std::vector<std::vector<uint8_t>> gather_blobs(MPI_Comm comm, const std::vector<uint8_t>& blob) {
  int rank = 0;
  int size = 1;
  PMPI_Comm_rank(comm, &rank);
  PMPI_Comm_size(comm, &size);
  int mine = static_cast<int>(blob.size());
  std::vector<int> sizes(static_cast<std::size_t>(size), 0);
  PMPI_Gather(&mine, 1, MPI_INT, sizes.data(), 1, MPI_INT, 0, comm);
  std::vector<int> displs(static_cast<std::size_t>(size), 0);
  int total = 0;
  for (int r = 0; r < size; ++r) {
    displs[static_cast<std::size_t>(r)] = total;
    total += sizes[static_cast<std::size_t>(r)];
  }
  std::vector<uint8_t> all(static_cast<std::size_t>(rank == 0 ? total : 0));
  PMPI_Gatherv(blob.data(), mine, MPI_BYTE, all.data(), sizes.data(), displs.data(), MPI_BYTE, 0, comm);
  std::vector<std::vector<uint8_t>> out;
  if (rank == 0) {
    for (int r = 0; r < size; ++r) {
      auto begin = all.begin() + displs[static_cast<std::size_t>(r)];
      out.emplace_back(begin, begin + sizes[static_cast<std::size_t>(r)]);
    }
  }
  return out;
}

bool unify(MPI_Comm comm, const LocalDefinitions& local, const std::string& host,
           GlobalDefinitions& global, IdMapping& mapping, UnificationCost* cost) noexcept {
  timespec started{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &started);
  int rank = 0;
  int size = 1;
  PMPI_Comm_rank(comm, &rank);
  PMPI_Comm_size(comm, &size);
  int ok = 1;
  std::vector<uint8_t> blob;
  try {
    blob = json::to_cbor(local_json(local, host));
  } catch (...) {
    ok = 0;
  }
  std::vector<std::vector<uint8_t>> replies;
  try {
    const auto blobs = gather_blobs(comm, blob);
    if (rank == 0) {
      Unifier unifier;
      for (const auto& b : blobs) {
        json reply;
        try {
          reply = unifier.add_rank(json::from_cbor(b), global);
        } catch (...) {
          ok = 0;
          global.hosts.resize(replies.size() + 1);
          reply = json::object();
        }
        replies.push_back(json::to_cbor(reply));
      }
    }
    const std::vector<uint8_t> mine = scatter_blobs(comm, replies);
    if (cost != nullptr) {
      // Gather of sizes and of blobs on rank 0; Scatter(v) of the replies; the Allreduce below.
      cost->bytes_received = 4 + mine.size() + 4;
      cost->messages = 3;
      if (rank == 0) {
        cost->messages += 2;
        cost->bytes_received += 4 * static_cast<uint64_t>(size);
        for (const auto& b : blobs) cost->bytes_received += b.size();
      }
    }
    const json reply = json::from_cbor(mine);
    mapping.regions = reply.at("regions").get<std::vector<uint32_t>>();
    mapping.comms = reply.at("comms").get<std::vector<uint32_t>>();
    if (mapping.regions.size() != local.regions().size() || mapping.comms.size() != local.comms().size()) ok = 0;
  } catch (...) {
    ok = 0;
  }
  int all_ok = 0;
  PMPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, comm);
  if (cost != nullptr) {
    timespec stopped{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &stopped);
    cost->cpu_seconds = static_cast<double>(stopped.tv_sec - started.tv_sec) +
                        static_cast<double>(stopped.tv_nsec - started.tv_nsec) * 1e-9;
  }
  return all_ok == 1;
}

}  // namespace orrery::measure
