#pragma once
// free_loopback_port: a TCP port on 127.0.0.1 that no one listens on right now (bound to 0, read
// back, closed) — where a run on this machine serves its rendezvous. Another program could take
// it before the rendezvous does; that rendezvous then fails naming the address.
// Any thread.

namespace hnclip {

// Throws DistributedError (distributed/process_group.h) when no socket can be bound.
int free_loopback_port();

}  // namespace hnclip
