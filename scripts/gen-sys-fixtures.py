#!/usr/bin/env python3
"""Writes halfperf's machine fixtures: small root trees (sys/ and proc/) of real
big machines, holding only the files halfperf's detection reads.

    scripts/gen-sys-fixtures.py [OUT_DIR]     (default: tests/data)

Each machine is written from its public description (the vendors' product
specifications and the shape of `lscpu`, `lscpu -e` and /sys listings published
for it): Linux's CPU numbering (SMT siblings in a second block), the cache
sizes and which CPUs share each, the NUMA nodes, the hybrid CPU types, and a
state (governor, turbo, THP, ...) typical of such a machine. The trees are
regenerated whole; edit the descriptions here, never the files.
"""

import os
import shutil
import sys


def cpulist(cpus):
    """The kernel's CPU-list format: 0-3,8,10-11."""
    cpus = sorted(cpus)
    parts, i = [], 0
    while i < len(cpus):
        j = i
        while j + 1 < len(cpus) and cpus[j + 1] == cpus[j] + 1:
            j += 1
        parts.append(str(cpus[i]) if i == j else f"{cpus[i]}-{cpus[j]}")
        i = j + 1
    return ",".join(parts)


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text + "\n")


class Machine:
    """CPUs with their core, package, NUMA node, type and caches."""

    def __init__(self, name):
        self.name = name
        self.cpus = {}  # id -> dict
        self.caches = {}  # id -> list of (level, type, size, shared)
        self.types = {}  # "cpu_core"/"cpu_atom" -> [ids]
        self.sys_files = {}
        self.proc_files = {}

    def cpu(self, cid, core, pkg, node, siblings, cluster=None):
        self.cpus[cid] = dict(core=core, pkg=pkg, node=node, sib=siblings, cluster=cluster)
        self.caches[cid] = []

    def cache(self, level, kind, size, shared):
        for c in shared:
            self.caches[c].append((level, kind, size, shared))

    def emit(self, out):
        root = os.path.join(out, self.name)
        shutil.rmtree(root, ignore_errors=True)
        sysd = os.path.join(root, "sys")
        cpud = os.path.join(sysd, "devices/system/cpu")
        write(os.path.join(cpud, "online"), cpulist(self.cpus))
        nodes = {}
        for cid, c in self.cpus.items():
            t = os.path.join(cpud, f"cpu{cid}/topology")
            write(os.path.join(t, "core_id"), str(c["core"]))
            write(os.path.join(t, "physical_package_id"), str(c["pkg"]))
            write(os.path.join(t, "core_cpus_list"), cpulist(c["sib"]))
            if c["cluster"] is not None:
                write(os.path.join(t, "cluster_id"), str(c["cluster"]))
            for i, (level, kind, size, shared) in enumerate(self.caches[cid]):
                d = os.path.join(cpud, f"cpu{cid}/cache/index{i}")
                write(os.path.join(d, "level"), str(level))
                write(os.path.join(d, "type"), kind)
                write(os.path.join(d, "size"), size)
                write(os.path.join(d, "shared_cpu_list"), cpulist(shared))
                write(os.path.join(d, "coherency_line_size"), "64")
            nodes.setdefault(c["node"], []).append(cid)
        for n, cpus in nodes.items():
            write(os.path.join(sysd, f"devices/system/node/node{n}/cpulist"), cpulist(cpus))
        for kind, cpus in self.types.items():
            write(os.path.join(sysd, f"devices/{kind}/cpus"), cpulist(cpus))
        for p, text in self.sys_files.items():
            write(os.path.join(sysd, p), text)
        for p, text in self.proc_files.items():
            write(os.path.join(root, "proc", p), text)
        return root


def state(m, *, governor, driver, min_khz, max_khz, turbo, smt, thp, numa_bal,
          isolated="", nohz="", release, model, microcode, flags, cmdline,
          vendor=None, product=None, cpu_max=None, cpuset=None):
    """The machine's state files: cpufreq of cpu0, boost or no_turbo, SMT
    control, THP, NUMA balancing, isolcpus/nohz_full, DMI vendor, cgroup v2."""
    f = m.sys_files
    if governor is not None:
        base = "devices/system/cpu/cpu0/cpufreq/"
        f[base + "scaling_governor"] = governor
        f[base + "scaling_driver"] = driver
        f[base + "scaling_min_freq"] = str(min_khz)
        f[base + "scaling_max_freq"] = str(max_khz)
    if turbo is not None:
        if driver == "intel_pstate":
            f["devices/system/cpu/intel_pstate/no_turbo"] = "0" if turbo else "1"
        else:
            f["devices/system/cpu/cpufreq/boost"] = "1" if turbo else "0"
    f["devices/system/cpu/smt/control"] = smt
    f["kernel/mm/transparent_hugepage/enabled"] = thp
    f["devices/system/cpu/isolated"] = isolated
    f["devices/system/cpu/nohz_full"] = nohz or "(null)"
    if vendor:
        f["class/dmi/id/sys_vendor"] = vendor
        f["class/dmi/id/product_name"] = product or ""
    if cpu_max:
        f["fs/cgroup/cpu.max"] = cpu_max
    if cpuset:
        f["fs/cgroup/cpuset.cpus.effective"] = cpuset
    p = m.proc_files
    p["sys/kernel/osrelease"] = release
    p["sys/kernel/numa_balancing"] = numa_bal
    p["cmdline"] = cmdline
    lines = ["processor\t: 0", f"model name\t: {model}"]
    if microcode:
        lines.append(f"microcode\t: {microcode}")
    lines.append(f"flags\t\t: {flags}")
    p["cpuinfo"] = "\n".join(lines)


def xeon_2s(name="sys-xeon-2s-112", cores=28, l3="43008K", cpuset=None, cpu_max=None,
            vm=False):
    """Two-socket Xeon Gold 6348 (Ice Lake SP, 28 cores, SMT): CPUs 0-27 on
    socket 0 and 28-55 on socket 1, their SMT siblings 56-111; L1d 48K, L1i
    32K, L2 1280K per core, L3 42 MiB per socket; one NUMA node per socket.
    The container fixture takes a smaller sibling (12 cores a socket)."""
    m = Machine(name)
    n = 2 * cores
    for pkg in range(2):
        for k in range(cores):
            a = pkg * cores + k
            b = a + n
            for c in (a, b):
                m.cpu(c, k, pkg, pkg, [a, b])
            m.cache(1, "Data", "48K", [a, b])
            m.cache(1, "Instruction", "32K", [a, b])
            m.cache(2, "Unified", "1280K", [a, b])
        sock = [pkg * cores + k for k in range(cores)]
        m.cache(3, "Unified", l3, sock + [c + n for c in sock])
    flags = "fpu sse2 ssse3 sse4_2 avx avx2 fma avx512f avx512vl"
    if vm:
        flags += " hypervisor"
    state(m, governor="performance", driver="intel_pstate", min_khz=800000,
          max_khz=3500000, turbo=not vm, smt="on", thp="always [madvise] never",
          numa_bal="0" if not vm else "1", release="5.15.0-91-generic",
          model="Intel(R) Xeon(R) Gold 6348 CPU @ 2.60GHz" if cores == 28
          else "Intel(R) Xeon(R) Silver 4214 CPU @ 2.20GHz",
          microcode="0xd0003a5", flags=flags,
          cmdline="BOOT_IMAGE=/vmlinuz root=/dev/sda1 ro isolcpus=2,3 nohz_full=2,3"
          if not vm else "BOOT_IMAGE=/vmlinuz root=/dev/vda1 ro",
          isolated="2-3" if not vm else "", nohz="2-3" if not vm else "",
          vendor="QEMU" if vm else "Dell Inc.",
          product="Standard PC (Q35 + ICH9, 2009)" if vm else "PowerEdge R750",
          cpu_max=cpu_max, cpuset=cpuset)
    return m


def epyc_7763():
    """AMD EPYC 7763 (Milan, 64 cores, SMT, 128 CPUs): 8 CCDs of 8 cores, each
    CCD one 32 MiB L3; L1d/L1i 32K and L2 512K per core; CPUs 0-63 the first
    threads, 64-127 their siblings; NPS1 (one NUMA node)."""
    m = Machine("sys-epyc-7763-128")
    for k in range(64):
        a, b = k, k + 64
        for c in (a, b):
            m.cpu(c, k, 0, 0, [a, b])
        m.cache(1, "Data", "32K", [a, b])
        m.cache(1, "Instruction", "32K", [a, b])
        m.cache(2, "Unified", "512K", [a, b])
    for ccd in range(8):
        cores = list(range(8 * ccd, 8 * ccd + 8))
        m.cache(3, "Unified", "32768K", cores + [c + 64 for c in cores])
    state(m, governor="schedutil", driver="acpi-cpufreq", min_khz=1500000,
          max_khz=2450000, turbo=True, smt="on", thp="[always] madvise never",
          numa_bal="1", release="6.1.0-18-amd64", model="AMD EPYC 7763 64-Core Processor",
          microcode="0xa0011d1", flags="fpu sse2 ssse3 sse4_2 avx avx2 fma",
          cmdline="BOOT_IMAGE=/boot/vmlinuz-6.1.0-18-amd64 root=UUID=0 ro quiet",
          vendor="Supermicro", product="AS -1024US-TRT")
    return m


def alder_lake():
    """Intel Core i9-12900K (Alder Lake): 8 P cores with SMT (CPUs 0-15,
    siblings 2k and 2k+1; L1d 48K, L1i 32K, L2 1280K each) and 8 E cores
    without (CPUs 16-23; L1d 32K, L1i 64K, one 2 MiB L2 per cluster of four);
    one 30 MiB L3; /sys/devices/cpu_core/cpus = 0-15, cpu_atom/cpus = 16-23."""
    m = Machine("sys-alderlake-hybrid-24")
    for k in range(8):
        a, b = 2 * k, 2 * k + 1
        for c in (a, b):
            m.cpu(c, 4 * k, 0, 0, [a, b], cluster=8 * k)
        m.cache(1, "Data", "48K", [a, b])
        m.cache(1, "Instruction", "32K", [a, b])
        m.cache(2, "Unified", "1280K", [a, b])
    for cl in range(2):
        cpus = list(range(16 + 4 * cl, 20 + 4 * cl))
        for c in cpus:
            m.cpu(c, 32 + c - 16, 0, 0, [c], cluster=64 + 8 * cl)
            m.cache(1, "Data", "32K", [c])
            m.cache(1, "Instruction", "64K", [c])
        m.cache(2, "Unified", "2048K", cpus)
    m.cache(3, "Unified", "30720K", list(range(24)))
    m.types = {"cpu_core": list(range(16)), "cpu_atom": list(range(16, 24))}
    state(m, governor="powersave", driver="intel_pstate", min_khz=800000,
          max_khz=5200000, turbo=True, smt="on", thp="always [madvise] never",
          numa_bal="0", release="6.5.0-14-generic",
          model="12th Gen Intel(R) Core(TM) i9-12900K", microcode="0x2f",
          flags="fpu sse2 ssse3 sse4_2 avx avx2 fma hybrid",
          cmdline="BOOT_IMAGE=/boot/vmlinuz root=/dev/nvme0n1p2 ro quiet splash",
          vendor="ASUS", product="ROG STRIX Z690-E GAMING WIFI")
    return m


def graviton3():
    """AWS Graviton3 (c7g.16xlarge, Neoverse V1, 64 cores, no SMT): L1d and L1i
    64K and L2 1 MiB per core, one 32 MiB L3; one NUMA node; a Nitro (KVM)
    guest without cpufreq."""
    m = Machine("sys-graviton3-64")
    for c in range(64):
        m.cpu(c, c, 0, 0, [c])
        m.cache(1, "Data", "64K", [c])
        m.cache(1, "Instruction", "64K", [c])
        m.cache(2, "Unified", "1024K", [c])
    m.cache(3, "Unified", "32768K", list(range(64)))
    state(m, governor=None, driver=None, min_khz=0, max_khz=0, turbo=None,
          smt="notsupported", thp="[always] madvise never", numa_bal="0",
          release="6.1.66-91.160.amzn2023.aarch64", model=None and "",
          microcode=None, flags="fp asimd evtstrm aes pmull sha1 sha2 crc32 atomics sve",
          cmdline="BOOT_IMAGE=(hd0,gpt1)/vmlinuz root=UUID=0 ro console=ttyS0",
          vendor="Amazon EC2", product="c7g.16xlarge")
    # Arm's /proc/cpuinfo has no model name: the CPU part instead.
    m.proc_files["cpuinfo"] = (
        "processor\t: 0\nBogoMIPS\t: 2100.00\n"
        "Features\t: fp asimd evtstrm aes pmull sha1 sha2 crc32 atomics sve\n"
        "CPU implementer\t: 0x41\nCPU part\t: 0xd40\nCPU revision\t: 1")
    return m


def container():
    """A container on a two-socket Xeon Silver 4214 (12 cores a socket, SMT, 48
    CPUs) in a KVM guest: its cpuset allows CPUs 1, 5, 13-14, 25 and 37 (1 and
    25 are SMT siblings, as are 13 and 37) and cpu.max gives 3 CPUs."""
    return xeon_2s("sys-container-cpuset", cores=12, l3="16896K",
                   cpuset="1,5,13-14,25,37", cpu_max="300000 100000", vm=True)


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else "tests/data"
    for m in (xeon_2s(), epyc_7763(), alder_lake(), graviton3(), container()):
        print(m.emit(out))


if __name__ == "__main__":
    main()
