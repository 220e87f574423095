//! Where a transport's lines live: the NUMA node of the memory that holds a
//! mailbox's flags and slots, and so c2c's line (`run --home`).
//!
//! core-to-core-latency's users asked for the line's home node as a factor
//! and for a line parked on a third core: on a two-socket machine a line
//! whose memory sits on the other socket's node is fetched through that
//! node's directory, so the same pair of CPUs can time differently by where
//! the line was allocated. halfperf homes the lines by **first touch**: the
//! transport's memory is allocated and zeroed by a thread pinned to the home
//! CPU ([`first_touch`]), so Linux's default policy places its pages on that
//! CPU's node. The node is then read back with `get_mempolicy(MPOL_F_NODE |
//! MPOL_F_ADDR)` ([`node_of_address`]): an allocator that reuses pages
//! touched before keeps them where they were, and a result says so rather
//! than claim a home it did not get. (`mbind` would force the node; first
//! touch was chosen because it needs no privilege and moves nothing the
//! allocator shares with other allocations.)
//!
//! The choices ([`Home`]): `local`, the pair's first CPU (rank 0, the one
//! that times; the default); a CPU by number; `node:N`, the first allowed
//! CPU of node N in topology order; `third`, a CPU that is neither of the
//! pair, chosen as far from both as the machine allows ([`third_cpu`]:
//! another NUMA node, else another L3 domain, else another package, else
//! another core). Invariants: a home is always an allowed CPU; `third` is
//! never one of the pair (with fewer than three CPUs it is refused, never
//! folded onto a CPU of the pair); every refusal is checked before anything
//! runs ([`Home::check`]).

use super::pin::{PinError, pin_current_thread};
use super::topology::Topology;
use std::fmt;

/// Where to home a transport's lines.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Home {
    /// On the pair's first CPU (rank 0).
    #[default]
    Local,
    /// On this CPU.
    Cpu(usize),
    /// On the first allowed CPU of this NUMA node.
    Node(usize),
    /// On a CPU that is neither of the pair, as far from both as possible.
    Third,
}

/// Why a home cannot be used on this machine.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum HomeError {
    /// The text is none of the forms.
    #[error("--home {0:?}: expected a CPU number, node:N, third or local")]
    Syntax(String),
    /// The CPU is not one this run may use.
    #[error("--home {cpu}: CPU {cpu} is not one this run may use (allowed: {allowed:?})")]
    CpuNotAllowed {
        /// The CPU asked for.
        cpu: usize,
        /// The CPUs the run may use.
        allowed: Vec<usize>,
    },
    /// The machine has no such NUMA node.
    #[error("--home node:{node}: this machine has no NUMA node {node} (nodes: {nodes:?})")]
    NoSuchNode {
        /// The node asked for.
        node: usize,
        /// The machine's nodes.
        nodes: Vec<usize>,
    },
    /// The node exists, but none of the run's CPUs is on it.
    #[error(
        "--home node:{node}: none of the CPUs this run may use ({allowed:?}) is on node {node}"
    )]
    NodeNotAllowed {
        /// The node asked for.
        node: usize,
        /// The CPUs the run may use.
        allowed: Vec<usize>,
    },
    /// No CPU besides the pair.
    #[error(
        "--home third: the line needs a CPU that is neither of the pair, and this run may use only {count} CPU(s) {allowed:?}; a CPU is never paired with itself"
    )]
    NoThird {
        /// How many CPUs the run may use.
        count: usize,
        /// The CPUs the run may use.
        allowed: Vec<usize>,
    },
}

impl std::str::FromStr for Home {
    type Err = HomeError;
    fn from_str(s: &str) -> Result<Home, HomeError> {
        let t = s.trim();
        let bad = || HomeError::Syntax(s.to_string());
        match t {
            "local" => Ok(Home::Local),
            "third" => Ok(Home::Third),
            _ => match t.strip_prefix("node:") {
                Some(n) => n.parse().map(Home::Node).map_err(|_| bad()),
                None => t.parse().map(Home::Cpu).map_err(|_| bad()),
            },
        }
    }
}

// A run's settings record the home as its text (`"third"`, `"node:1"`).
impl serde::Serialize for Home {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> serde::Deserialize<'de> for Home {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Home, D::Error> {
        let text = String::deserialize(d)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

impl fmt::Display for Home {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Home::Local => f.write_str("local"),
            Home::Cpu(c) => write!(f, "{c}"),
            Home::Node(n) => write!(f, "node:{n}"),
            Home::Third => f.write_str("third"),
        }
    }
}

impl Home {
    /// Whether this home can be used by a run on `allowed` CPUs of `topology`;
    /// checked before anything runs.
    pub fn check(self, topology: &Topology, allowed: &[usize]) -> Result<(), HomeError> {
        match self {
            Home::Local => Ok(()),
            Home::Cpu(cpu) if allowed.contains(&cpu) => Ok(()),
            Home::Cpu(cpu) => Err(HomeError::CpuNotAllowed {
                cpu,
                allowed: allowed.to_vec(),
            }),
            Home::Node(node) => node_cpu(topology, allowed, node).map(|_| ()),
            Home::Third if allowed.len() >= 3 => Ok(()),
            Home::Third => Err(HomeError::NoThird {
                count: allowed.len(),
                allowed: allowed.to_vec(),
            }),
        }
    }

    /// The CPU whose first touch homes the lines of the pair `(a, b)`.
    pub fn cpu_for(
        self,
        topology: &Topology,
        allowed: &[usize],
        (a, b): (usize, usize),
    ) -> Result<usize, HomeError> {
        self.check(topology, allowed)?;
        match self {
            Home::Local => Ok(a),
            Home::Cpu(cpu) => Ok(cpu),
            Home::Node(node) => node_cpu(topology, allowed, node),
            Home::Third => third_cpu(topology, allowed, a, b).ok_or(HomeError::NoThird {
                count: allowed.len(),
                allowed: allowed.to_vec(),
            }),
        }
    }
}

/// The first of `allowed` on NUMA node `node`, in topology order.
fn node_cpu(topology: &Topology, allowed: &[usize], node: usize) -> Result<usize, HomeError> {
    let nodes = topology.numa_node_ids();
    // A machine without NUMA nodes in /sys is one node, node 0.
    let on_node = |c: usize| topology.cpu(c).map(|c| c.numa_node.unwrap_or(0)) == Some(node);
    if !(nodes.contains(&node) || (nodes.is_empty() && node == 0)) {
        return Err(HomeError::NoSuchNode { node, nodes });
    }
    topology
        .topo_order(allowed)
        .into_iter()
        .find(|&c| on_node(c))
        .ok_or_else(|| HomeError::NodeNotAllowed {
            node,
            allowed: allowed.to_vec(),
        })
}

/// A CPU of `allowed` that is neither `a` nor `b`, as far from both as the
/// machine allows: on a NUMA node neither is on, else in an L3 domain
/// neither is in, else in a package neither is in, else on a core neither
/// is on; the first in topology order among the farthest. `None` when no
/// third CPU is allowed.
pub fn third_cpu(topology: &Topology, allowed: &[usize], a: usize, b: usize) -> Option<usize> {
    let node = |c: usize| topology.cpu(c).and_then(|c| c.numa_node);
    let package = |c: usize| topology.cpu(c).map(|c| c.package_id);
    let core = |c: usize| topology.cpu(c).map(|c| (c.package_id, c.core_id));
    let apart = |c: usize, key: &dyn Fn(usize) -> Option<(usize, usize)>| {
        let k = key(c);
        k.is_some() && k != key(a) && k != key(b)
    };
    let score = |c: usize| {
        let mut s = 0;
        if apart(c, &|x| node(x).map(|n| (n, 0))) {
            s += 8;
        }
        if apart(c, &|x| topology.l3_domain(x).map(|d| (d, 0))) {
            s += 4;
        }
        if apart(c, &|x| package(x).map(|p| (p, 0))) {
            s += 2;
        }
        if apart(c, &core) {
            s += 1;
        }
        s
    };
    let order = topology.topo_order(allowed);
    let best = order
        .iter()
        .copied()
        .filter(|&c| c != a && c != b)
        .map(score)
        .max()?;
    order
        .into_iter()
        .find(|&c| c != a && c != b && score(c) == best)
}

/// Runs `make` on a thread pinned to `cpu` and returns what it made: memory
/// it allocates and writes is first touched on `cpu`'s NUMA node.
pub fn first_touch<R: Send>(cpu: usize, make: impl FnOnce() -> R + Send) -> Result<R, PinError> {
    std::thread::scope(|s| {
        s.spawn(|| {
            pin_current_thread(cpu)?;
            Ok(make())
        })
        .join()
        .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
    })
}

/// The NUMA node of the page holding the address `addr` (already touched),
/// as the kernel reports it; `None` where it cannot say (no NUMA support, a container
/// that forbids the call, another OS).
pub fn node_of_address(addr: usize) -> Option<usize> {
    #[cfg(target_os = "linux")]
    {
        const MPOL_F_NODE: libc::c_ulong = 1;
        const MPOL_F_ADDR: libc::c_ulong = 2;
        let mut node: libc::c_int = -1;
        // SAFETY: get_mempolicy with MPOL_F_NODE | MPOL_F_ADDR writes one int,
        // the node of the page at `addr`, into `node`, which lives for the
        // call; a null nodemask with maxnode 0 asks for no mask. `addr` is a
        // number the kernel looks up in this process's mappings, never a
        // pointer anyone dereferences; an unmapped address makes the call
        // fail with EFAULT, not fault.
        let rc = unsafe {
            libc::syscall(
                libc::SYS_get_mempolicy,
                &mut node as *mut libc::c_int,
                std::ptr::null_mut::<libc::c_ulong>(),
                0 as libc::c_ulong,
                addr as libc::c_ulong,
                MPOL_F_NODE | MPOL_F_ADDR,
            )
        };
        (rc == 0 && node >= 0).then_some(node as usize)
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = addr;
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_form_parses_and_prints_back() {
        for (text, home) in [
            ("local", Home::Local),
            ("third", Home::Third),
            ("node:1", Home::Node(1)),
            ("17", Home::Cpu(17)),
        ] {
            assert_eq!(text.parse::<Home>(), Ok(home));
            assert_eq!(home.to_string(), text);
        }
        for bad in ["", "node:", "node:x", "-1", "cpu3", "thrid"] {
            assert!(
                matches!(bad.parse::<Home>(), Err(HomeError::Syntax(_))),
                "{bad}"
            );
        }
    }

    #[test]
    fn memory_first_touched_on_a_cpu_reads_back_a_node_of_the_machine() {
        let cpu = *super::super::pin::allowed_cpus().first().unwrap();
        let block = first_touch(cpu, || vec![1u8; 1 << 20]).unwrap();
        let nodes = std::fs::read_dir("/sys/devices/system/node")
            .map(|d| {
                d.filter_map(Result::ok)
                    .filter(|e| {
                        let name = e.file_name().to_string_lossy().into_owned();
                        name.strip_prefix("node")
                            .is_some_and(|n| n.parse::<usize>().is_ok())
                    })
                    .count()
            })
            .unwrap_or(1);
        if let Some(node) = node_of_address(block.as_ptr() as usize) {
            assert!(node < nodes.max(1), "node {node} of {nodes}");
        }
        assert_eq!(block.iter().map(|&b| b as usize).sum::<usize>(), 1 << 20);
    }
}
