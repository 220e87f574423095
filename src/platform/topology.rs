//! The CPU topology read from a sysfs tree: logical CPUs, physical cores, SMT
//! siblings, packages, NUMA nodes and caches with the CPUs that share them.
//!
//! The root of the tree is a parameter so that tests read a fixture tree instead of
//! the live `/sys`.

use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;
use std::fmt;
use std::path::{Path, PathBuf};

/// Why the topology could not be read.
#[derive(Debug, thiserror::Error)]
pub enum TopologyError {
    /// A file that every Linux sysfs has was missing or unreadable.
    #[error("cannot read {path}: {source} (is this a Linux system with /sys mounted?)")]
    Read {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// The root holds no `devices/system/cpu`: it is not a sysfs tree.
    #[error("{root} is not a /sys tree: it has no devices/system/cpu")]
    NotSys {
        /// The root given.
        root: PathBuf,
    },
    /// A list of CPUs (a cpuset, a core type's list) names CPUs that are not
    /// online.
    #[error("{path} names CPUs {unknown:?} that do not exist (online: {online})")]
    UnknownCpus {
        /// The file.
        path: PathBuf,
        /// The CPUs it names that are not online.
        unknown: Vec<usize>,
        /// The online CPUs, as a list.
        online: String,
    },
    /// A file held something that is not a CPU list or a number.
    #[error("cannot parse {path}: {text:?} is not a {what}")]
    Parse {
        /// The file.
        path: PathBuf,
        /// What was in it.
        text: String,
        /// What was expected.
        what: &'static str,
    },
}

/// The kind of a cache.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum CacheKind {
    /// Data cache.
    Data,
    /// Instruction cache.
    Instruction,
    /// Unified data and instruction cache.
    Unified,
}

/// One cache, seen from the CPUs that share it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Cache {
    /// 1 for L1, 2 for L2 ...
    pub level: u8,
    /// Data, instruction or unified.
    pub kind: CacheKind,
    /// Capacity in bytes.
    pub size_bytes: u64,
    /// Cache line size in bytes, where the kernel reports it.
    pub line_bytes: Option<u32>,
    /// The logical CPUs that share this cache.
    pub shared_cpus: Vec<usize>,
}

/// One logical CPU.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Cpu {
    /// The logical CPU number the kernel uses.
    pub id: usize,
    /// The physical core, numbered within its package.
    pub core_id: usize,
    /// The package (socket).
    pub package_id: usize,
    /// The NUMA node, where the kernel has NUMA nodes.
    pub numa_node: Option<usize>,
    /// The logical CPUs on the same physical core, this one included.
    pub smt_siblings: Vec<usize>,
    /// The core's type on a hybrid machine (`/sys/devices/cpu_core/cpus` and
    /// `cpu_atom/cpus`); `None` where all cores are alike.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub core_type: Option<CoreType>,
    /// The cluster (`topology/cluster_id`: cores sharing an L2 or a mesh
    /// stop), where the kernel reports one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cluster_id: Option<usize>,
}

/// A core's type on a hybrid machine.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Hash,
    Serialize,
    Deserialize,
    schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum CoreType {
    /// A performance core (Intel's `cpu_core`).
    Performance,
    /// An efficiency core (Intel's `cpu_atom`).
    Efficiency,
}

impl CoreType {
    /// `P` or `E`, as the heat map and the tables label a CPU.
    pub fn letter(self) -> char {
        match self {
            CoreType::Performance => 'P',
            CoreType::Efficiency => 'E',
        }
    }
}

/// How far apart two logical CPUs are, nearest first.
///
/// The order matters: kernels pick "the most distant class available" by default.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Hash,
    Serialize,
    Deserialize,
    schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum DistanceClass {
    /// Two hardware threads of one physical core (SMT siblings).
    SameCore,
    /// Different cores sharing an L2 cache.
    SharedL2,
    /// Different cores sharing an L3 cache but no L2.
    SharedL3,
    /// Same package, no shared cache.
    SamePackage,
    /// Different packages.
    OtherPackage,
    /// Another MPI process on the same node (halfperf's `mpi` transport): the
    /// CPUs may share anything above, but the ranks share no memory.
    OtherProcess,
    /// An MPI process on another node.
    OtherNode,
}

impl DistanceClass {
    /// Every class, nearest first.
    pub const ALL: [DistanceClass; 7] = [
        DistanceClass::SameCore,
        DistanceClass::SharedL2,
        DistanceClass::SharedL3,
        DistanceClass::SamePackage,
        DistanceClass::OtherPackage,
        DistanceClass::OtherProcess,
        DistanceClass::OtherNode,
    ];
}

impl fmt::Display for DistanceClass {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(match self {
            DistanceClass::SameCore => "same core (SMT)",
            DistanceClass::SharedL2 => "shared L2",
            DistanceClass::SharedL3 => "shared L3",
            DistanceClass::SamePackage => "same package",
            DistanceClass::OtherPackage => "other package",
            DistanceClass::OtherProcess => "other process, same node",
            DistanceClass::OtherNode => "other node",
        })
    }
}

/// The machine's CPUs and caches.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Topology {
    /// CPU model name from `/proc/cpuinfo`, where readable.
    pub cpu_model: Option<String>,
    /// Online logical CPUs, by id.
    pub cpus: Vec<Cpu>,
    /// Every distinct cache of the machine.
    pub caches: Vec<Cache>,
}

impl Topology {
    /// A topology of the caches `(level, kind, KiB, CPUs sharing it)` and no CPUs,
    /// for tests.
    #[cfg(test)]
    pub(crate) fn with_caches(caches: Vec<(u8, CacheKind, u64, Vec<usize>)>) -> Topology {
        Topology {
            cpu_model: None,
            cpus: Vec::new(),
            caches: caches
                .into_iter()
                .map(|(level, kind, kib, shared_cpus)| Cache {
                    level,
                    kind,
                    size_bytes: kib * 1024,
                    line_bytes: Some(64),
                    shared_cpus,
                })
                .collect(),
        }
    }

    /// Reads the live machine (`/sys` and `/proc/cpuinfo`).
    pub fn detect() -> Result<Topology, TopologyError> {
        let mut topo = Topology::read_from(Path::new("/sys"))?;
        topo.cpu_model = std::fs::read_to_string("/proc/cpuinfo")
            .ok()
            .and_then(|text| {
                text.lines()
                    .find(|l| l.starts_with("model name"))
                    .and_then(|l| l.split_once(':'))
                    .map(|(_, v)| v.trim().to_string())
            });
        Ok(topo)
    }

    /// Reads a sysfs tree rooted at `root` (the directory that holds `devices/`).
    pub fn read_from(root: &Path) -> Result<Topology, TopologyError> {
        let cpu_dir = root.join("devices/system/cpu");
        if !cpu_dir.is_dir() {
            return Err(TopologyError::NotSys {
                root: root.to_path_buf(),
            });
        }
        let online = parse_cpu_list_file(&cpu_dir.join("online"))?;
        let numa = read_numa_nodes(root);
        let types = read_core_types(root, &online)?;
        let mut cpus = Vec::with_capacity(online.len());
        let mut caches: Vec<Cache> = Vec::new();
        for &id in &online {
            let topo_dir = cpu_dir.join(format!("cpu{id}/topology"));
            let siblings_file = if topo_dir.join("core_cpus_list").exists() {
                "core_cpus_list"
            } else {
                "thread_siblings_list"
            };
            cpus.push(Cpu {
                id,
                core_id: parse_number_file(&topo_dir.join("core_id"))?,
                package_id: parse_package_file(&topo_dir.join("physical_package_id"))?,
                numa_node: numa
                    .iter()
                    .find(|(_, list)| list.contains(&id))
                    .map(|(node, _)| *node),
                smt_siblings: parse_cpu_list_file(&topo_dir.join(siblings_file))?,
                core_type: types
                    .iter()
                    .find(|(_, list)| list.contains(&id))
                    .map(|(t, _)| *t),
                cluster_id: parse_number_file(&topo_dir.join("cluster_id")).ok(),
            });
            for cache in read_caches(&cpu_dir.join(format!("cpu{id}/cache")))? {
                if !caches.contains(&cache) {
                    caches.push(cache);
                }
            }
        }
        caches.sort_by_key(|c| (c.level, c.kind as u8, c.shared_cpus.first().copied()));
        Ok(Topology {
            cpu_model: None,
            cpus,
            caches,
        })
    }

    /// The CPU with this id, if online.
    pub fn cpu(&self, id: usize) -> Option<&Cpu> {
        self.cpus.iter().find(|c| c.id == id)
    }

    /// Number of online logical CPUs.
    pub fn logical_cpus(&self) -> usize {
        self.cpus.len()
    }

    /// Number of physical cores (distinct package/core pairs).
    pub fn physical_cores(&self) -> usize {
        let cores: BTreeSet<_> = self
            .cpus
            .iter()
            .map(|c| (c.package_id, c.core_id))
            .collect();
        cores.len()
    }

    /// Number of packages.
    pub fn packages(&self) -> usize {
        let p: BTreeSet<_> = self.cpus.iter().map(|c| c.package_id).collect();
        p.len()
    }

    /// Number of NUMA nodes (1 when the kernel reports none).
    pub fn numa_nodes(&self) -> usize {
        self.numa_node_ids().len().max(1)
    }

    /// The NUMA nodes the kernel reports, ascending (empty when it reports none).
    pub fn numa_node_ids(&self) -> Vec<usize> {
        let n: BTreeSet<_> = self.cpus.iter().filter_map(|c| c.numa_node).collect();
        n.into_iter().collect()
    }

    /// Whether any core runs more than one hardware thread.
    pub fn smt(&self) -> bool {
        self.cpus.iter().any(|c| c.smt_siblings.len() > 1)
    }

    /// The data (or unified) cache sizes per level as seen by `cpu`, L1 first:
    /// the memory levels a vector sweep crosses.
    pub fn data_cache_sizes(&self, cpu: usize) -> Vec<(u8, u64)> {
        let mut v: Vec<(u8, u64)> = self
            .caches
            .iter()
            .filter(|c| c.kind != CacheKind::Instruction && c.shared_cpus.contains(&cpu))
            .map(|c| (c.level, c.size_bytes))
            .collect();
        v.sort();
        v
    }

    /// How far apart CPUs `a` and `b` are; `None` if either is unknown or `a == b`.
    pub fn distance(&self, a: usize, b: usize) -> Option<DistanceClass> {
        let (ca, cb) = (self.cpu(a)?, self.cpu(b)?);
        if a == b {
            return None;
        }
        if ca.smt_siblings.contains(&b) {
            return Some(DistanceClass::SameCore);
        }
        let share = |level: u8| {
            self.caches.iter().any(|c| {
                c.level == level
                    && c.kind != CacheKind::Instruction
                    && c.shared_cpus.contains(&a)
                    && c.shared_cpus.contains(&b)
            })
        };
        Some(if share(2) {
            DistanceClass::SharedL2
        } else if share(3) {
            DistanceClass::SharedL3
        } else if ca.package_id == cb.package_id {
            DistanceClass::SamePackage
        } else {
            DistanceClass::OtherPackage
        })
    }

    /// One representative pair of CPUs per distance class present among `allowed`,
    /// nearest class first: the lowest-numbered pair within a class whose CPUs
    /// are both performance cores (or untyped), else the lowest-numbered pair.
    /// On a hybrid machine a kernel's default pair is then a pair of P cores,
    /// never an E pair standing in for the class.
    pub fn pairs_by_class(&self, allowed: &[usize]) -> Vec<(DistanceClass, usize, usize)> {
        let efficient = |c: usize| {
            self.cpu(c)
                .is_some_and(|c| c.core_type == Some(CoreType::Efficiency))
        };
        let mut out: Vec<(DistanceClass, usize, usize, bool)> = Vec::new();
        for (i, &a) in allowed.iter().enumerate() {
            for &b in &allowed[i + 1..] {
                let Some(class) = self.distance(a, b) else {
                    continue;
                };
                let fast = !efficient(a) && !efficient(b);
                match out.iter_mut().find(|(c, ..)| *c == class) {
                    None => out.push((class, a, b, fast)),
                    Some(slot) if fast && !slot.3 => *slot = (class, a, b, fast),
                    Some(_) => {}
                }
            }
        }
        out.sort_by_key(|(c, ..)| *c);
        out.into_iter().map(|(c, a, b, _)| (c, a, b)).collect()
    }
}

fn read_trimmed(path: &Path) -> Result<String, TopologyError> {
    std::fs::read_to_string(path)
        .map(|s| s.trim().to_string())
        .map_err(|source| TopologyError::Read {
            path: path.to_path_buf(),
            source,
        })
}

fn parse_number_file(path: &Path) -> Result<usize, TopologyError> {
    let text = read_trimmed(path)?;
    text.parse().map_err(|_| TopologyError::Parse {
        path: path.to_path_buf(),
        text,
        what: "number",
    })
}

/// A package id; Arm kernels before 5.x wrote -1 (no package known): one
/// package then.
fn parse_package_file(path: &Path) -> Result<usize, TopologyError> {
    if read_trimmed(path)? == "-1" {
        return Ok(0);
    }
    parse_number_file(path)
}

/// The hybrid core types: `devices/cpu_core/cpus` (performance) and
/// `devices/cpu_atom/cpus` (efficiency), both present or neither used.
fn read_core_types(
    root: &Path,
    online: &[usize],
) -> Result<Vec<(CoreType, Vec<usize>)>, TopologyError> {
    let p = root.join("devices/cpu_core/cpus");
    let e = root.join("devices/cpu_atom/cpus");
    if !(p.exists() && e.exists()) {
        return Ok(Vec::new());
    }
    let mut out = Vec::new();
    for (kind, path) in [(CoreType::Performance, p), (CoreType::Efficiency, e)] {
        let list = parse_cpu_list_file(&path)?;
        check_known(&path, &list, online)?;
        out.push((kind, list));
    }
    Ok(out)
}

/// An error naming the CPUs of `list` (read from `path`) that are not in
/// `online`.
pub(super) fn check_known(
    path: &Path,
    list: &[usize],
    online: &[usize],
) -> Result<(), TopologyError> {
    let unknown: Vec<usize> = list
        .iter()
        .copied()
        .filter(|c| !online.contains(c))
        .collect();
    if unknown.is_empty() {
        return Ok(());
    }
    Err(TopologyError::UnknownCpus {
        path: path.to_path_buf(),
        unknown,
        online: super::lists::format_cpu_list(online),
    })
}

pub(super) fn parse_cpu_list_file(path: &Path) -> Result<Vec<usize>, TopologyError> {
    let text = read_trimmed(path)?;
    parse_cpu_list(&text).ok_or_else(|| TopologyError::Parse {
        path: path.to_path_buf(),
        text,
        what: "CPU list such as 0-3,8",
    })
}

/// Parses the kernel's CPU list format (`0-3,8,10-11`; an empty file is no
/// CPUs), sorted; `None` if malformed.
fn parse_cpu_list(text: &str) -> Option<Vec<usize>> {
    if text.is_empty() {
        return Some(Vec::new());
    }
    let mut cpus = super::parse_cpu_list(text).ok()?;
    cpus.sort_unstable();
    Some(cpus)
}

/// Parses a cache size as the kernel writes it (`48K`); `None` if malformed.
fn parse_size(text: &str) -> Option<u64> {
    super::parse_size(text).ok()
}

fn read_caches(dir: &Path) -> Result<Vec<Cache>, TopologyError> {
    let mut out = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Ok(out); // some virtual machines expose no cache directory
    };
    let mut indices: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with("index"))
        })
        .collect();
    indices.sort();
    for idx in indices {
        let level = parse_number_file(&idx.join("level"))? as u8;
        let kind = match read_trimmed(&idx.join("type"))?.as_str() {
            "Data" => CacheKind::Data,
            "Instruction" => CacheKind::Instruction,
            _ => CacheKind::Unified,
        };
        let size_text = read_trimmed(&idx.join("size"))?;
        let size_bytes = parse_size(&size_text).ok_or_else(|| TopologyError::Parse {
            path: idx.join("size"),
            text: size_text,
            what: "cache size such as 48K",
        })?;
        let line_bytes = read_trimmed(&idx.join("coherency_line_size"))
            .ok()
            .and_then(|t| t.parse().ok());
        out.push(Cache {
            level,
            kind,
            size_bytes,
            line_bytes,
            shared_cpus: parse_cpu_list_file(&idx.join("shared_cpu_list"))?,
        });
    }
    Ok(out)
}

fn read_numa_nodes(root: &Path) -> Vec<(usize, Vec<usize>)> {
    let dir = root.join("devices/system/node");
    let Ok(entries) = std::fs::read_dir(&dir) else {
        return Vec::new();
    };
    let mut nodes: Vec<(usize, Vec<usize>)> = entries
        .filter_map(Result::ok)
        .filter_map(|e| {
            let name = e.file_name().into_string().ok()?;
            let node: usize = name.strip_prefix("node")?.parse().ok()?;
            let list = std::fs::read_to_string(e.path().join("cpulist")).ok()?;
            Some((node, parse_cpu_list(list.trim())?))
        })
        .collect();
    nodes.sort();
    nodes
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cpu_lists_parse_like_the_kernel_writes_them() {
        assert_eq!(
            parse_cpu_list("0-3,8,10-11"),
            Some(vec![0, 1, 2, 3, 8, 10, 11])
        );
        assert_eq!(parse_cpu_list("5"), Some(vec![5]));
        assert_eq!(parse_cpu_list(""), Some(vec![]));
        assert_eq!(parse_cpu_list("3-1"), None);
        assert_eq!(parse_cpu_list("a"), None);
    }

    #[test]
    fn cache_sizes_parse_with_suffixes() {
        assert_eq!(parse_size("48K"), Some(48 * 1024));
        assert_eq!(parse_size("491520K"), Some(491_520 * 1024));
        assert_eq!(parse_size("2M"), Some(2 << 20));
        assert_eq!(parse_size("64"), Some(64));
        assert_eq!(parse_size("x"), None);
    }
}
