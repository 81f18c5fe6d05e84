// A node run's GPUs take turns on their links. A row that uses another GPU (copies to it, reads its memory) first
// asks the node's parent for a turn on that GPU and waits until the parent says that GPU is idle (its own rows done,
// no other pair on it); it says when it is done. Outside a node run (no GPUBENCH_NODE_TURNS) nothing waits.
// The parent's side is app/node_run.cpp; the protocol is one line each way (docs/harness.md):
//   child: "ready SECONDS"      parent: "start"       (once, when every child is ready: the rows start together)
//   child: "turn PEER SEQ"      parent: "go SEQ"      child: "end SEQ" ("end SEQ last" after its last turn; "cancel
//                                                                 SEQ": it stopped waiting)
//   child: "done"               (its rows are over: its GPU is free for the others' links while the process ends)
// The host's links, which every GPU of the node shares (the HostLink rows):
//   child: "together NAME"      parent: "together NAME go"  (once every child has said NAME or ended: the next step
//                                                             of every GPU starts at once)
//   child: "host SEQ"           parent: "go SEQ"    child: "end SEQ" ("cancel SEQ": it stopped waiting); a turn on the
//                                                   host: no other GPU holds one and no link's turn uses this GPU
// A node check's links share memory between their two GPUs' processes (CUDA IPC), so no process opens another's GPU;
// the parent passes these lines between children (FROM and TO are GPUs):
//   child: "offer TO NAME HEX"  TO hears "offer FROM NAME HEX"  (before "ready": a handle to memory or an event)
//   child: "back PEER SEQ"      PEER hears "back FROM SEQ"      (a two-way copy: queue the way back on your GPU)
//   PEER:  "queued FROM SEQ ok" FROM hears "queued SEQ ok"      (or "no": it could not)
//   parent: "bye"               (its measurers are over: it closes what it mapped of theirs, frees what it served)
//   child:  "closed"            (after "bye": it maps no other process's memory)
//   parent: "free"              (every process that mapped this one's offers said "closed": it frees them and ends)
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace gpubench {

inline constexpr const char* kNodeTurnsVariable = "GPUBENCH_NODE_TURNS";  // "WRITE_FD,READ_FD" of the child's pipes
// The GPUs whose children measure their link to this child's GPU ("0,3"): it makes their memory on its GPU.
inline constexpr const char* kNodeServesVariable = "GPUBENCH_NODE_SERVES";

// In a node run, the GPUs whose children measure their link to this GPU (kNodeServesVariable); else none.
const std::vector<int>& node_measurers();

// In a node run, before the first row: makes this process's context on each peer it will measure (the slowest part
// of a link's first row, done while no GPU measures anything), then waits until every child of the node is ready.
// Outside a node run, nothing.
void node_ready(const std::vector<int>& peers, double wait_seconds = 60.0);

// In a node run, what a child makes for its links before its rows (their buffers on both GPUs): node_ready calls it
// once the peers' contexts are made, while no GPU of the node measures anything. Set by the Peer family. A preparation
// that shares the links' memory between the processes (node_offer, set_link_server) needs no peer contexts: with one
// set, node_ready makes none.
void set_link_preparation(std::function<void(const std::vector<int>& peers)> prepare);

// In a node run, while preparing the links: hands `to`'s child a named handle (hex) through the parent.
void node_offer(int to, const std::string& name, const std::string& hex);

// What `from`'s child offered this one under `name` ("" where nothing was); known once node_ready has returned.
std::string node_offered(int from, const std::string& name);

// In a node run, asks `peer`'s child to queue the way back of a two-way copy on its GPU (its copy waits for an event
// this process recorded first) and waits until it has: true, or false and `why_not`.
bool node_way_back(int peer, std::string& why_not);

// In a node run, what a child that serves links does for a way back (from: the measuring GPU): true once queued. After
// its rows (node_rows_done) the child serves until the parent says every link is measured, then drops `serve` (and the
// memory it holds).
void set_link_server(std::function<bool(int from)> serve);

// In a node run, starts making the contexts on `peers` (other than `own`) on a thread of their own, at once: they are
// made while this process opens its own GPU, and node_ready waits for them. Outside a node run, nothing.
void start_peer_contexts(int own, const std::vector<int>& peers);

// In a node run, keeps what this process offered another (node_offer) past the GPU session's close, until every process
// that mapped it has closed it (CUDA leaves freeing it earlier undefined); node_rows_done frees it then. Else nothing.
void hold_until_unmapped(std::shared_ptr<void> exported);

// In a node run, after the last row and the GPU session's close (its memory freed): says so, so that the GPU serves the
// other children's links at once, not after this process's contexts are gone (0.2-0.25 s on four H200s); then serves
// the way backs of its measurers (set_link_server) until the parent's "bye", and keeps what it offered until the
// parent's "free". Outside a node run, nothing.
void node_rows_done();

// Hex text of `bytes` bytes (an IPC handle on the turn pipe), and back: false where `text` is not that many bytes.
std::string to_hex(const void* data, std::size_t bytes);
bool from_hex(const std::string& text, void* data, std::size_t bytes);

// In a node run, how many of this child's rows take a turn on a link: the last one's end says so ("end SEQ last"), and
// the parent keeps its two GPUs for no next row.
void set_link_rows(int rows);

// Whether this process is a node run's child (its parent passes the turn lines).
bool in_node_run();

// In a node run, says `name` and waits until every child of the node has said it (or ended), calling `while_waiting`
// every millisecond or so (a row keeps its load on the link there): every GPU's next step then starts at once. True
// at once outside a node run; false with `why_not` on a timeout, an interrupt or a parent that is gone.
bool node_together(const std::string& name, const std::function<void()>& while_waiting, double wait_seconds,
                   std::string& why_not);

// A turn on the node's host (its PCIe side, shared by every GPU): while it is held no other GPU of the node holds one
// and no link's turn uses this GPU, so a copy to the host is this GPU's alone. Outside a node run, granted at once.
class HostTurn {
 public:
  explicit HostTurn(double wait_seconds = 120.0);
  ~HostTurn();
  HostTurn(const HostTurn&) = delete;
  HostTurn& operator=(const HostTurn&) = delete;

  bool granted() const { return granted_; }
  const std::string& why_not() const { return why_not_; }  // when not granted

 private:
  bool asked_ = false;
  bool granted_ = true;
  unsigned long long sequence_ = 0;
  std::string why_not_;
};

class LinkTurn {
 public:
  // Waits for the turn on `peer` at most `wait_seconds`, or until the run is interrupted.
  explicit LinkTurn(int peer, double wait_seconds = 120.0);
  ~LinkTurn();
  LinkTurn(const LinkTurn&) = delete;
  LinkTurn& operator=(const LinkTurn&) = delete;

  bool granted() const { return granted_; }
  const std::string& why_not() const { return why_not_; }  // when not granted

 private:
  bool asked_ = false;  // a node run: the parent was asked
  bool granted_ = true;
  unsigned long long sequence_ = 0;
  std::string why_not_;
};

}  // namespace gpubench
