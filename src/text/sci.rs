//! The SCI torus model's report for the terminal (`halfperf model sci`): the
//! inputs, the crossover sizes, and the latency of each dimension count at
//! selected total sizes.

use crate::model::sci::{OVERHEAD_REFERENCE_SIZE_BYTES, SciApplication, SciModelReport};

/// Plain-text rendering of a report: the inputs, the crossover sizes, then average and
/// multi-unicast latency of each dimension count at selected total sizes.
pub fn projection(report: &SciModelReport) -> String {
    let c = &report.components;
    let size = report.size_bytes;
    let overhead = c
        .overhead_ns(size)
        .map_or_else(|e| e.to_string(), |o| format!("{o:.1} ns"));
    let mut out = format!(
        "SCI torus latency model (Gonzalez 2000), {size}-byte messages\n\
         l_p = {} ns, l_f = {} ns, l_s = {} ns, o = {} ns + {} ns/byte beyond {} bytes \
         -> o({size} B) = {overhead}\n\n",
        c.propagation_lp_ns,
        c.forwarding_lf_ns,
        c.switching_ls_ns,
        c.overhead_o_ns,
        c.overhead_per_byte_ns,
        OVERHEAD_REFERENCE_SIZE_BYTES,
    );
    out.push_str(
        "Crossover sizes (total nodes beyond which the higher-dimensional torus is faster)\n",
    );
    out.push_str(&format!(
        "{:>10}  {:>16}  {:>16}  {:>16}\n",
        "dims", "average latency", "multi-unicast", "pipelined"
    ));
    let crossovers = &report.crossovers;
    let pipelined = crossovers.pipelined_multi_unicast.iter();
    for ((a, m), p) in crossovers
        .average
        .iter()
        .zip(&crossovers.multi_unicast)
        .zip(pipelined)
    {
        out.push_str(&format!(
            "{:>10}  {:>16}  {:>16}  {:>16}\n",
            format!("{}D -> {}D", a.from_dims, a.to_dims),
            crossover_text(a.nodes),
            crossover_text(m.nodes),
            crossover_text(p.nodes)
        ));
    }
    out.push_str(
        "multi-unicast: the paper's sum of the N - 1 request latencies, (N - 1) x the average, \
         so the same crossovers; pipelined: a sender that does not wait, (N - 2) \
         max(o, link, l_s) + the farthest request, destinations by offset\n",
    );
    let dims: Vec<u32> = report.curves.iter().map(|curve| curve.dims).collect();
    let max_nodes = report
        .curves
        .iter()
        .flat_map(|curve| curve.points.last())
        .map(|p| p.nodes)
        .fold(0.0, f64::max);
    let tables = [
        (
            SciApplication::AverageLatency,
            "Average request latency (ns)",
            1.0,
        ),
        (
            SciApplication::MultiUnicast,
            "One-to-all multi-unicast, the paper's sum (us)",
            1e-3,
        ),
        (
            SciApplication::PipelinedMultiUnicast,
            "One-to-all multi-unicast, pipelined sender (us)",
            1e-3,
        ),
    ];
    for (application, title, scale) in tables {
        out.push_str(&format!(
            "\n{title}; n = N^(1/D) nodes per dimension, non-integer n extrapolated\n{:>8}",
            "nodes"
        ));
        for d in &dims {
            out.push_str(&format!("{:>12}", format!("{d}D")));
        }
        out.push('\n');
        for nodes in selected_sizes(max_nodes) {
            out.push_str(&format!("{nodes:>8.0}"));
            for &d in &dims {
                let cell = application
                    .latency_ns(c, size, nodes, d)
                    .map_or_else(|_| "-".to_string(), |l| format!("{:.1}", l * scale));
                out.push_str(&format!("{cell:>12}"));
            }
            out.push('\n');
        }
    }
    out
}

fn crossover_text(nodes: Option<f64>) -> String {
    nodes.map_or_else(|| "none in range".to_string(), |n| format!("{n:.1}"))
}

/// 10, 20, 50, 100, 200, 500, ... up to `max_nodes`, and `max_nodes` itself.
fn selected_sizes(max_nodes: f64) -> Vec<f64> {
    let mut sizes: Vec<f64> = (1..10)
        .flat_map(|decade| [1.0, 2.0, 5.0].map(|m| m * 10f64.powi(decade)))
        .filter(|&n| n < max_nodes)
        .collect();
    sizes.push(max_nodes);
    sizes
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::sci::{SciComponents, model_report};

    /// The paper's range of system sizes.
    const PAPER_RANGE: u32 = 1000;

    #[test]
    fn text_rendering() {
        let report = model_report(
            &SciComponents::paper_table1(),
            64,
            PAPER_RANGE,
            &[1, 2, 3, 4],
        )
        .unwrap();
        let text = projection(&report);
        let crossover_at = text.find("Crossover").unwrap();
        assert!(crossover_at < text.find("Average request latency").unwrap());
        assert!(text.contains("1D -> 2D"));
        assert!(text.contains("18.2"));
        assert!(text.contains("190.8"));
        assert!(text.contains("none in range"));
        // 10x10 torus at 100 nodes: 5218.2 ns; 1000-node ring: 999 x 37610 ns = 37572.4 us.
        assert!(text.contains("5218.2"));
        assert!(text.contains("37572.4"));
        // Pipelined: 1000-node ring 2151.9 us, crossovers 16.1 and 140.4 nodes.
        assert!(text.contains("2151.9"));
        assert!(text.contains("16.1") && text.contains("140.4"));
        assert!(!text.contains('\u{1b}'));
        assert!(text.lines().any(|l| l.trim_start().starts_with("1000")));
    }
}
