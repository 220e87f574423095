//! The machine's CPUs in topology order, its L3 domains (an EPYC's CCDs), the
//! kind of a CPU pair (distance class and, on a hybrid machine, the two core
//! types), and the representative pairs of each kind.
//!
//! Invariants: every order is a permutation of the CPUs given (CPUs the
//! topology does not know keep their place at the end); a pair's kind names
//! its core types smaller first (`P-E`, never `E-P`); representative pairs are
//! chosen deterministically, spread evenly over the kind's pairs in topology
//! order, so that a sample of a 128-CPU matrix covers every package and CCD.

use super::topology::{CacheKind, CoreType, DistanceClass, Topology};
use serde::{Deserialize, Serialize};
use std::fmt;

/// What a pair of CPUs is: how far apart, and of which core types.
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
pub struct PairKind {
    /// The distance class.
    pub class: DistanceClass,
    /// The two cores' types, the smaller first (performance before
    /// efficiency); `None` on a machine whose cores are alike.
    pub types: Option<(CoreType, CoreType)>,
}

impl fmt::Display for PairKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let text = match self.types {
            Some((a, b)) => format!("{}, {}-{}", self.class, a.letter(), b.letter()),
            None => self.class.to_string(),
        };
        f.pad(&text)
    }
}

/// Where a logical CPU sits, as a result file records it for the heat map's
/// grouping and labels: package, NUMA node, L3 domain (numbered 0, 1, ... in
/// topology order), core and core type.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct CpuPlace {
    /// The logical CPU.
    pub cpu: usize,
    /// Its package (socket).
    pub package: usize,
    /// Its NUMA node, where the kernel has NUMA nodes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub numa_node: Option<usize>,
    /// Its L3 domain (an EPYC's CCD), numbered in topology order; `None`
    /// without an L3.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub l3_domain: Option<usize>,
    /// Its physical core, numbered within its package.
    pub core: usize,
    /// Its core type on a hybrid machine.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub core_type: Option<CoreType>,
}

impl Topology {
    /// The places of `cpus` in topology order (CPUs the topology does not
    /// know are left out); L3 domains numbered by first appearance.
    pub fn places(&self, cpus: &[usize]) -> Vec<CpuPlace> {
        let mut domains: Vec<usize> = Vec::new();
        self.topo_order(cpus)
            .into_iter()
            .filter_map(|id| {
                let c = self.cpu(id)?;
                let l3_domain = self.l3_domain(id).map(|d| {
                    domains.iter().position(|&x| x == d).unwrap_or_else(|| {
                        domains.push(d);
                        domains.len() - 1
                    })
                });
                Some(CpuPlace {
                    cpu: id,
                    package: c.package_id,
                    numa_node: c.numa_node,
                    l3_domain,
                    core: c.core_id,
                    core_type: c.core_type,
                })
            })
            .collect()
    }

    /// The last-level shared cache of `cpu` (the L3, an EPYC's CCD), as an index
    /// into [`Topology::caches`]; `None` on a machine without an L3.
    pub fn l3_domain(&self, cpu: usize) -> Option<usize> {
        self.caches.iter().position(|c| {
            c.level == 3 && c.kind != CacheKind::Instruction && c.shared_cpus.contains(&cpu)
        })
    }

    /// The number of L3 domains (CCDs on an EPYC, one per package on a
    /// Xeon); 0 without an L3.
    pub fn l3_domains(&self) -> usize {
        self.caches
            .iter()
            .filter(|c| c.level == 3 && c.kind != CacheKind::Instruction)
            .count()
    }

    /// The sort key of `cpu` in topology order: package, NUMA node, L3
    /// domain, core type (performance first), cluster, core, then its place
    /// among its SMT siblings.
    fn topo_key(&self, cpu: usize) -> (usize, usize, usize, u8, usize, usize, usize, usize) {
        let Some(c) = self.cpu(cpu) else {
            return (usize::MAX, 0, 0, 0, 0, 0, 0, cpu);
        };
        let thread = c.smt_siblings.iter().position(|&s| s == cpu).unwrap_or(0);
        (
            c.package_id,
            c.numa_node.unwrap_or(0),
            self.l3_domain(cpu).unwrap_or(0),
            c.core_type.map_or(0, |t| t as u8),
            c.cluster_id.unwrap_or(0),
            c.core_id,
            thread,
            cpu,
        )
    }

    /// `cpus` in topology order: a package's CPUs together, within it an L3
    /// domain's, within it a core's SMT siblings side by side. The heat map's
    /// axes.
    pub fn topo_order(&self, cpus: &[usize]) -> Vec<usize> {
        let mut v = cpus.to_vec();
        v.sort_by_key(|&c| self.topo_key(c));
        v
    }

    /// `cpus` in the order a sweep over processor counts takes them from the
    /// front: one L3 domain after another, within a domain one thread of every
    /// core first and then their SMT siblings. So P up to the cores of an L3
    /// domain stays inside it, and no two ranks share a core while a domain
    /// has an idle one.
    pub fn sweep_order(&self, cpus: &[usize]) -> Vec<usize> {
        let mut v = cpus.to_vec();
        v.sort_by_key(|&c| {
            let k = self.topo_key(c);
            // package, node, domain, thread, then type, cluster, core.
            (k.0, k.1, k.2, k.6, k.3, k.4, k.5, k.7)
        });
        v
    }

    /// The kind of the pair `a`, `b`; `None` if either is unknown or `a == b`.
    pub fn pair_kind(&self, a: usize, b: usize) -> Option<PairKind> {
        let class = self.distance(a, b)?;
        let types = match (self.cpu(a)?.core_type, self.cpu(b)?.core_type) {
            (Some(x), Some(y)) => Some((x.min(y), x.max(y))),
            _ => None,
        };
        Some(PairKind { class, types })
    }

    /// Every pair of `allowed` (a < b in topology order), grouped by kind,
    /// nearest kind first.
    pub fn pairs_by_kind(&self, allowed: &[usize]) -> Vec<(PairKind, Vec<(usize, usize)>)> {
        let order = self.topo_order(allowed);
        let mut groups: Vec<(PairKind, Vec<(usize, usize)>)> = Vec::new();
        for (i, &a) in order.iter().enumerate() {
            for &b in &order[i + 1..] {
                let Some(kind) = self.pair_kind(a, b) else {
                    continue;
                };
                match groups.iter_mut().find(|(k, _)| *k == kind) {
                    Some((_, pairs)) => pairs.push((a, b)),
                    None => groups.push((kind, vec![(a, b)])),
                }
            }
        }
        groups.sort_by_key(|(k, _)| *k);
        groups
    }

    /// Up to `per_kind` pairs of every kind among `allowed`, spread evenly over
    /// the kind's pairs in topology order (the first pair always among them);
    /// every pair when `per_kind` is `None`.
    pub fn representative_pairs(
        &self,
        allowed: &[usize],
        per_kind: Option<usize>,
    ) -> Vec<(PairKind, usize, usize)> {
        let mut out = Vec::new();
        for (kind, pairs) in self.pairs_by_kind(allowed) {
            let take = per_kind.map_or(pairs.len(), |n| n.clamp(1, pairs.len()));
            for i in 0..take {
                let (a, b) = pairs[i * pairs.len() / take];
                out.push((kind, a, b));
            }
        }
        out
    }
}
