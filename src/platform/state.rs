//! The machine's state, the settings that move every number halfperf
//! measures (kerncraft records the same beside every machine file): the
//! frequency governor and driver, boost or turbo, the frequency limits, SMT
//! control, transparent huge pages, NUMA balancing, isolated and tickless CPUs,
//! a hypervisor, the cgroup's CPU quota and cpuset, the kernel and the CPU's
//! microcode; and the preheat that runs before timing (as c2clat's) so that
//! the first kernel does not meet cores still ramping up.
//!
//! Everything is read through a [`MachineRoot`] (a `sys` and a `proc`
//! directory), so fixtures of other machines test the readers. A setting the
//! machine does not expose is `None`, never a guess; only the cpuset, which
//! decides the CPUs a run uses, is an error when it names CPUs that do not
//! exist.

use super::pin::pin_current_thread;
use super::topology::{Topology, TopologyError, check_known, parse_cpu_list_file};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// Where the machine is read from: the live `/sys` and `/proc`, or a fixture's.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MachineRoot {
    /// The sysfs tree (holds `devices/`).
    pub sys: PathBuf,
    /// The procfs tree (holds `cpuinfo`).
    pub proc: PathBuf,
}

impl MachineRoot {
    /// This machine.
    pub fn live() -> MachineRoot {
        MachineRoot {
            sys: PathBuf::from("/sys"),
            proc: PathBuf::from("/proc"),
        }
    }

    /// A root filesystem's `sys/` and `proc/` (a fixture, a saved tree).
    pub fn under(root: &Path) -> MachineRoot {
        MachineRoot {
            sys: root.join("sys"),
            proc: root.join("proc"),
        }
    }

    fn read(&self, under_sys: bool, rel: &str) -> Option<String> {
        let base = if under_sys { &self.sys } else { &self.proc };
        std::fs::read_to_string(base.join(rel))
            .ok()
            .map(|s| s.trim().to_string())
    }

    /// The topology, with the CPU model from `cpuinfo` (its `model name`, or
    /// on Arm its implementer and part).
    pub fn topology(&self) -> Result<Topology, TopologyError> {
        let mut topo = Topology::read_from(&self.sys)?;
        topo.cpu_model = self.read(false, "cpuinfo").and_then(|t| cpu_model(&t));
        Ok(topo)
    }

    /// The cgroup directory of this process (cgroup v2: `/proc/self/cgroup`'s
    /// `0::` line under `fs/cgroup`), else the cgroup root.
    fn cgroup_dir(&self) -> PathBuf {
        let base = self.sys.join("fs/cgroup");
        let own = self.read(false, "self/cgroup").and_then(|t| {
            t.lines().find_map(|l| {
                l.strip_prefix("0::")
                    .map(|p| p.trim_start_matches('/').to_string())
            })
        });
        match own {
            Some(p) if !p.is_empty() && base.join(&p).is_dir() => base.join(p),
            _ => base,
        }
    }

    /// The CPUs the cgroup's cpuset allows (`cpuset.cpus.effective`), `None`
    /// where there is no cpuset file; an error when it names CPUs that are
    /// not online in `topology`.
    pub fn cpuset(&self, topology: &Topology) -> Result<Option<Vec<usize>>, TopologyError> {
        let path = self.cgroup_dir().join("cpuset.cpus.effective");
        if !path.exists() {
            return Ok(None);
        }
        let list = parse_cpu_list_file(&path)?;
        let online: Vec<usize> = topology.cpus.iter().map(|c| c.id).collect();
        check_known(&path, &list, &online)?;
        Ok(Some(list))
    }

    /// The machine's state as this root shows it.
    pub fn state(&self) -> MachineState {
        let cpufreq = |f: &str| self.read(true, &format!("devices/system/cpu/cpu0/cpufreq/{f}"));
        let khz = |f: &str| cpufreq(f).and_then(|t| t.parse::<u64>().ok());
        let turbo = match self.read(true, "devices/system/cpu/intel_pstate/no_turbo") {
            Some(t) => Some(t == "0"),
            None => self
                .read(true, "devices/system/cpu/cpufreq/boost")
                .map(|t| t == "1"),
        };
        let cmdline = self.read(false, "cmdline").unwrap_or_default();
        let cpu_list = |file: &str, param: &str| {
            self.read(true, &format!("devices/system/cpu/{file}"))
                .filter(|t| !t.is_empty() && t != "(null)")
                .or_else(|| kernel_param(&cmdline, param))
        };
        let cpuinfo = self.read(false, "cpuinfo").unwrap_or_default();
        MachineState {
            governor: cpufreq("scaling_governor"),
            cpufreq_driver: cpufreq("scaling_driver"),
            min_freq_khz: khz("scaling_min_freq"),
            max_freq_khz: khz("scaling_max_freq"),
            turbo,
            smt_control: self.read(true, "devices/system/cpu/smt/control"),
            transparent_hugepages: self
                .read(true, "kernel/mm/transparent_hugepage/enabled")
                .map(|t| bracketed(&t)),
            numa_balancing: self
                .read(false, "sys/kernel/numa_balancing")
                .map(|t| t != "0"),
            isolcpus: cpu_list("isolated", "isolcpus"),
            nohz_full: cpu_list("nohz_full", "nohz_full"),
            hypervisor: self.hypervisor(&cpuinfo),
            cpu_quota: std::fs::read_to_string(self.cgroup_dir().join("cpu.max"))
                .ok()
                .and_then(|t| cpu_quota(t.trim())),
            kernel: self.read(false, "sys/kernel/osrelease"),
            microcode: cpuinfo_field(&cpuinfo, "microcode"),
            preheat_ms: None,
        }
    }

    /// The hypervisor, if the machine runs under one: Xen's
    /// `/sys/hypervisor/type`, else the DMI vendor or product of a known
    /// virtual machine, else `unknown` when the CPU flags say `hypervisor`.
    fn hypervisor(&self, cpuinfo: &str) -> Option<String> {
        if let Some(t) = self.read(true, "hypervisor/type").filter(|t| !t.is_empty()) {
            return Some(t);
        }
        let dmi = format!(
            "{} {}",
            self.read(true, "class/dmi/id/sys_vendor")
                .unwrap_or_default(),
            self.read(true, "class/dmi/id/product_name")
                .unwrap_or_default()
        );
        const KNOWN: [(&str, &str); 7] = [
            ("QEMU", "KVM/QEMU"),
            ("KVM", "KVM/QEMU"),
            ("VMware", "VMware"),
            ("Microsoft Corporation Virtual", "Hyper-V"),
            ("Amazon EC2", "AWS Nitro (KVM)"),
            ("Google Compute Engine", "Google (KVM)"),
            ("innotek", "VirtualBox"),
        ];
        let bare_metal_instance = dmi.trim_end().ends_with(".metal");
        if let Some((_, name)) = KNOWN.iter().find(|(k, _)| dmi.contains(k))
            && !bare_metal_instance
        {
            return Some((*name).to_string());
        }
        let flags = cpuinfo_field(cpuinfo, "flags").unwrap_or_default();
        flags
            .split_whitespace()
            .any(|f| f == "hypervisor")
            .then(|| "unknown".to_string())
    }
}

/// The machine's settings that a comparison of two runs depends on.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct MachineState {
    /// CPU 0's frequency governor (`performance`, `powersave`, `schedutil`).
    pub governor: Option<String>,
    /// The cpufreq driver (`intel_pstate`, `acpi-cpufreq`, `amd-pstate`).
    pub cpufreq_driver: Option<String>,
    /// CPU 0's lowest allowed frequency, kHz.
    pub min_freq_khz: Option<u64>,
    /// CPU 0's highest allowed frequency, kHz.
    pub max_freq_khz: Option<u64>,
    /// Whether boost (turbo) is on.
    pub turbo: Option<bool>,
    /// SMT control (`on`, `off`, `forceoff`, `notsupported`).
    pub smt_control: Option<String>,
    /// Transparent huge pages mode (`always`, `madvise`, `never`).
    pub transparent_hugepages: Option<String>,
    /// Whether automatic NUMA balancing is on.
    pub numa_balancing: Option<bool>,
    /// Isolated CPUs (`isolcpus`), as a CPU list.
    pub isolcpus: Option<String>,
    /// Tickless CPUs (`nohz_full`), as a CPU list.
    pub nohz_full: Option<String>,
    /// The hypervisor when the machine is virtual; `None` on bare metal.
    pub hypervisor: Option<String>,
    /// The cgroup's CPU quota in CPUs (`cpu.max`); `None` without a quota.
    pub cpu_quota: Option<f64>,
    /// The kernel's release.
    pub kernel: Option<String>,
    /// The CPU's microcode revision.
    pub microcode: Option<String>,
    /// How long every allowed CPU was kept busy before the first timing, ms.
    #[serde(default)]
    pub preheat_ms: Option<f64>,
}

impl MachineState {
    /// Every setting as (name, value), `-` for one not known: the rows that
    /// `compare` and the card show.
    pub fn settings(&self) -> Vec<(&'static str, String)> {
        let s = |v: &Option<String>| v.clone().unwrap_or_else(|| "-".into());
        let b =
            |v: Option<bool>| v.map_or("-".into(), |x| if x { "on" } else { "off" }.to_string());
        let f = |v: Option<u64>| v.map_or("-".into(), |k| format!("{} MHz", k / 1000));
        vec![
            ("governor", s(&self.governor)),
            ("cpufreq driver", s(&self.cpufreq_driver)),
            ("min frequency", f(self.min_freq_khz)),
            ("max frequency", f(self.max_freq_khz)),
            ("turbo", b(self.turbo)),
            ("SMT control", s(&self.smt_control)),
            ("THP", s(&self.transparent_hugepages)),
            ("NUMA balancing", b(self.numa_balancing)),
            ("isolcpus", s(&self.isolcpus)),
            ("nohz_full", s(&self.nohz_full)),
            (
                "hypervisor",
                self.hypervisor.clone().unwrap_or_else(|| "none".into()),
            ),
            (
                "CPU quota",
                self.cpu_quota
                    .map_or("none".into(), |q| format!("{q} CPUs")),
            ),
            ("kernel", s(&self.kernel)),
            ("microcode", s(&self.microcode)),
            (
                "preheat",
                self.preheat_ms.map_or("-".into(), |m| format!("{m:.0} ms")),
            ),
        ]
    }

    /// The settings that make a comparison with another run fragile, one line
    /// each: a governor that lets the frequency fall, turbo on, a virtual
    /// machine, a CPU quota.
    pub fn fragile(&self) -> Vec<String> {
        let mut out = Vec::new();
        if let Some(g) = self.governor.as_deref().filter(|g| *g != "performance") {
            out.push(format!(
                "governor {g}: the frequency follows the load, so a latency depends on how busy the core just was (set `performance`)"
            ));
        }
        if self.turbo == Some(true) {
            out.push(
                "turbo on: the clock depends on temperature and on how many cores are busy".into(),
            );
        }
        if let Some(h) = &self.hypervisor {
            out.push(format!(
                "virtual machine ({h}): vCPUs are threads of the host, their placement and neighbours unseen"
            ));
        }
        if let Some(q) = self.cpu_quota {
            out.push(format!(
                "cgroup CPU quota of {q} CPUs: threads beyond it are throttled, waits stretch by whole periods"
            ));
        }
        out
    }
}

/// A state's settings as the card keeps them, `name: value`; none without a
/// state.
pub fn state_lines(state: Option<&MachineState>) -> Vec<String> {
    state.map_or_else(Vec::new, |s| {
        s.settings()
            .into_iter()
            .map(|(n, v)| format!("{n}: {v}"))
            .collect()
    })
}

/// The card's lines on the machine's state: the settings on one line, then a
/// `fragile comparison:` line per fragile setting (not `warning:`, which the
/// card keeps for the kernels' own warnings); nothing for a file without a state.
pub fn state_card_text(state: &[String], fragile: &[String]) -> String {
    if state.is_empty() {
        return String::new();
    }
    let mut s = format!("  state: {}\n", state.join("; "));
    for w in fragile {
        s.push_str(&format!("  fragile comparison: {w}\n"));
    }
    s
}

/// `compare`'s lines on the settings that differ between the files' states
/// (`name: value` lines as the cards keep them), one per setting with each
/// file's value; nothing when they agree or no file has a state. The
/// preheat's length is not a setting of the machine and is left out.
pub fn differing_settings_text<'a>(states: impl Iterator<Item = &'a [String]>) -> String {
    let states: Vec<&[String]> = states.collect();
    let value = |lines: &[String], name: &str| {
        lines
            .iter()
            .find_map(|l| l.strip_prefix(name)?.strip_prefix(": ").map(str::to_string))
            .unwrap_or_else(|| "?".into())
    };
    let mut names: Vec<&str> = Vec::new();
    for lines in &states {
        for l in lines.iter() {
            if let Some((n, _)) = l.split_once(": ")
                && n != "preheat"
                && !names.contains(&n)
            {
                names.push(n);
            }
        }
    }
    let mut s = String::new();
    for n in names {
        let values: Vec<String> = states.iter().map(|l| value(l, n)).collect();
        if values.iter().any(|v| *v != values[0]) {
            let cells: Vec<String> = values
                .iter()
                .enumerate()
                .map(|(i, v)| format!("[{}] {v}", i + 1))
                .collect();
            s.push_str(&format!("settings differ: {n}: {}\n", cells.join(", ")));
        }
    }
    s
}

/// The settings in which `a` and `b` differ, as `name: a -> b`.
pub fn state_differences(a: &MachineState, b: &MachineState) -> Vec<String> {
    a.settings()
        .into_iter()
        .zip(b.settings())
        .filter(|((n, x), (_, y))| *n != "preheat" && x != y)
        .map(|((n, x), (_, y))| format!("{n}: {x} -> {y}"))
        .collect()
}

/// The bracketed choice of a sysfs selector (`always [madvise] never`).
fn bracketed(text: &str) -> String {
    text.split_whitespace()
        .find_map(|w| w.strip_prefix('[').and_then(|w| w.strip_suffix(']')))
        .unwrap_or(text)
        .to_string()
}

/// The value of `param=` on the kernel's command line.
fn kernel_param(cmdline: &str, param: &str) -> Option<String> {
    cmdline
        .split_whitespace()
        .find_map(|w| w.strip_prefix(param)?.strip_prefix('=').map(str::to_string))
}

/// CPUs of a cgroup v2 `cpu.max` (`QUOTA PERIOD`, or `max PERIOD`: none).
fn cpu_quota(text: &str) -> Option<f64> {
    let mut parts = text.split_whitespace();
    let quota: f64 = parts.next()?.parse().ok()?;
    let period: f64 = parts.next()?.parse().ok()?;
    (period > 0.0).then(|| quota / period)
}

/// The first value of `field` in `cpuinfo`.
fn cpuinfo_field(cpuinfo: &str, field: &str) -> Option<String> {
    cpuinfo.lines().find_map(|l| {
        let (k, v) = l.split_once(':')?;
        (k.trim() == field).then(|| v.trim().to_string())
    })
}

/// The CPU's model: `model name`, or on Arm the implementer and part.
fn cpu_model(cpuinfo: &str) -> Option<String> {
    if let Some(m) = cpuinfo_field(cpuinfo, "model name") {
        return Some(m);
    }
    let implementer = cpuinfo_field(cpuinfo, "CPU implementer")?;
    let part = cpuinfo_field(cpuinfo, "CPU part")?;
    let known = match (implementer.as_str(), part.as_str()) {
        ("0x41", "0xd0c") => " (Arm Neoverse N1)",
        ("0x41", "0xd40") => " (Arm Neoverse V1)",
        ("0x41", "0xd4f") => " (Arm Neoverse V2)",
        ("0x41", "0xd49") => " (Arm Neoverse N2)",
        _ => "",
    };
    Some(format!("CPU implementer {implementer}, part {part}{known}"))
}

/// Keeps every CPU of `cpus` busy for `length`, one pinned spinning thread
/// each, and returns how long it took: the preheat before timing, so that
/// cores parked at a low frequency have ramped up (c2clat's warm-up). A CPU
/// that refuses the pin is skipped.
pub fn preheat(cpus: &[usize], length: Duration) -> Duration {
    let start = Instant::now();
    std::thread::scope(|s| {
        for &cpu in cpus {
            s.spawn(move || {
                if pin_current_thread(cpu).is_err() {
                    return;
                }
                let mut x = 0u64;
                while start.elapsed() < length {
                    for i in 0..1000u64 {
                        x = std::hint::black_box(x.wrapping_add(i));
                    }
                }
            });
        }
    });
    start.elapsed()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn selectors_parameters_and_quotas_parse() {
        assert_eq!(bracketed("always [madvise] never"), "madvise");
        assert_eq!(
            kernel_param("ro isolcpus=2,3 nohz_full=2-3 quiet", "isolcpus"),
            Some("2,3".into())
        );
        assert_eq!(kernel_param("ro quiet", "isolcpus"), None);
        assert_eq!(cpu_quota("300000 100000"), Some(3.0));
        assert_eq!(cpu_quota("max 100000"), None);
        assert_eq!(cpu_quota("50000 100000"), Some(0.5));
    }

    #[test]
    fn a_state_warns_of_what_makes_comparisons_fragile() {
        let quiet = MachineState {
            governor: Some("performance".into()),
            turbo: Some(false),
            ..MachineState::default()
        };
        assert!(quiet.fragile().is_empty());
        let loud = MachineState {
            governor: Some("powersave".into()),
            turbo: Some(true),
            hypervisor: Some("KVM/QEMU".into()),
            cpu_quota: Some(3.0),
            ..MachineState::default()
        };
        let w = loud.fragile();
        assert_eq!(w.len(), 4, "{w:?}");
        assert!(w[0].starts_with("governor powersave"));
        assert_eq!(
            state_differences(&quiet, &loud),
            vec![
                "governor: performance -> powersave",
                "turbo: off -> on",
                "hypervisor: none -> KVM/QEMU",
                "CPU quota: none -> 3 CPUs"
            ]
        );
    }

    #[test]
    fn preheat_lasts_its_length() {
        let t = preheat(
            &super::super::allowed_cpus()[..1],
            Duration::from_millis(30),
        );
        assert!(t >= Duration::from_millis(30), "{t:?}");
    }
}
