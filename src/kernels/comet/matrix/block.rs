//! CoMet's distributed matrix (section 3.3): the processor grid, the global
//! matrix's values, one rank's block with its guard wrapper, and the
//! operations on it ([`MatrixOp`]) as data; their code is each operation's
//! own file, and `grid.rs` times them.

use crate::control::RankError;

/// A processor grid: `rows x cols` positions, each holding one rank.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Grid {
    /// Grid rows (`proc_dim2`).
    pub rows: usize,
    /// Grid columns (`proc_dim1`).
    pub cols: usize,
    /// Whether ranks are placed by Gray code (else row-major).
    pub gray: bool,
    rank_at: Vec<usize>,
    pos_of: Vec<(usize, usize)>,
}

impl Grid {
    /// The grid of `rows x cols`, Gray-coded when both are powers of two.
    pub fn new(rows: usize, cols: usize) -> Grid {
        let use_gray = rows.is_power_of_two() && cols.is_power_of_two();
        let bits = cols.trailing_zeros();
        let mut rank_at = vec![0; rows * cols];
        let mut pos_of = vec![(0, 0); rows * cols];
        for i in 0..rows {
            for j in 0..cols {
                let r = if use_gray {
                    (gray(i) << bits) | gray(j)
                } else {
                    i * cols + j
                };
                rank_at[i * cols + j] = r;
                pos_of[r] = (i, j);
            }
        }
        Grid {
            rows,
            cols,
            gray: use_gray,
            rank_at,
            pos_of,
        }
    }

    /// The grid CoMet uses for `p` processors (section 3.3).
    pub fn for_processors(p: usize) -> Grid {
        let s = p.isqrt();
        if s * s == p {
            return Grid::new(s, s);
        }
        let d1 = (2 * p).isqrt();
        if d1 * d1 == 2 * p {
            return Grid::new(d1 / 2, d1);
        }
        let rows = (1..=s).rev().find(|r| p.is_multiple_of(*r)).unwrap_or(1);
        Grid::new(rows, p / rows)
    }

    /// The same ranks on the transposed shape (`cols x rows`).
    pub fn transposed(&self) -> Grid {
        Grid::new(self.cols, self.rows)
    }

    /// Number of positions.
    pub fn size(&self) -> usize {
        self.rows * self.cols
    }

    /// The rank at row `i`, column `j` (wrapping).
    pub fn rank_at(&self, i: usize, j: usize) -> usize {
        self.rank_at[(i % self.rows) * self.cols + j % self.cols]
    }

    /// The position of `rank`.
    pub fn pos(&self, rank: usize) -> (usize, usize) {
        self.pos_of[rank]
    }

    /// `(top, bottom, pred, succ)` of `rank`: north, south, west, east, wrapping.
    pub fn neighbours(&self, rank: usize) -> (usize, usize, usize, usize) {
        let (i, j) = self.pos(rank);
        (
            self.rank_at(i + self.rows - 1, j),
            self.rank_at(i + 1, j),
            self.rank_at(i, j + self.cols - 1),
            self.rank_at(i, j + 1),
        )
    }
}

/// The value of global element `(g, h)`.
#[inline]
pub fn value(g: usize, h: usize) -> f64 {
    (g * 65536 + h + 1) as f64
}

/// What the guard wrapper holds after setup: a value no element has.
pub const GUARD_UNSET: f64 = -1.0;

/// One rank's part of the distributed matrix, with scratch space for the
/// operations.
#[derive(Debug)]
pub struct LocalMatrix {
    /// The grid of the current layout.
    pub grid: Grid,
    /// This rank.
    pub rank: usize,
    /// The local dimension `ld`.
    pub ld: usize,
    /// `(ld + 2)^2` doubles, row-major, guard wrapper outermost.
    pub a: Vec<f64>,
    /// A second array of the same size (received blocks).
    pub buf: Vec<f64>,
    /// Four packed strips to send (N, S, E, W).
    pub send_strips: [Vec<f64>; 4],
    /// Four strips received (for the S, N, W, E guards).
    pub recv_strips: [Vec<f64>; 4],
    /// Operations applied since setup.
    pub count: u64,
}

impl LocalMatrix {
    /// Index of array element `(r, c)`, guard rows and columns included.
    #[inline]
    pub fn idx(&self, r: usize, c: usize) -> usize {
        r * (self.ld + 2) + c
    }

    /// The setup module: interior from the global values of this rank's block,
    /// guard wrapper [`GUARD_UNSET`], count zero, layout `grid`.
    pub fn setup(grid: Grid, rank: usize, ld: usize, max_ld: usize) -> LocalMatrix {
        let n = (max_ld + 2) * (max_ld + 2);
        let mut m = LocalMatrix {
            grid,
            rank,
            ld,
            a: Vec::with_capacity(n),
            buf: Vec::with_capacity(n),
            send_strips: std::array::from_fn(|_| Vec::with_capacity(max_ld)),
            recv_strips: std::array::from_fn(|_| Vec::with_capacity(max_ld)),
            count: 0,
        };
        m.reset(ld);
        m
    }

    /// Sets up again for local dimension `ld` (no allocation up to the capacity).
    pub fn reset(&mut self, ld: usize) {
        self.ld = ld;
        let n = (ld + 2) * (ld + 2);
        self.a.clear();
        self.a.resize(n, GUARD_UNSET);
        self.buf.clear();
        self.buf.resize(n, 0.0);
        for s in self.send_strips.iter_mut().chain(&mut self.recv_strips) {
            s.clear();
            s.resize(ld, 0.0);
        }
        let (i, j) = self.grid.pos(self.rank);
        for r in 1..=ld {
            for c in 1..=ld {
                let k = self.idx(r, c);
                self.a[k] = value(i * ld + r - 1, j * ld + c - 1);
            }
        }
        self.count = 0;
    }

    /// The verification module: every interior element against `expected(r, c)`
    /// (array indices), and, where `guard` gives one, every guard element.
    pub fn verify(
        &self,
        what: &str,
        expected: impl Fn(usize, usize) -> f64,
        guard: Option<&dyn Fn(usize, usize) -> Option<f64>>,
    ) -> Result<(), RankError> {
        let ld = self.ld;
        for r in 0..ld + 2 {
            for c in 0..ld + 2 {
                let interior = (1..=ld).contains(&r) && (1..=ld).contains(&c);
                let want = if interior {
                    Some(expected(r, c))
                } else {
                    guard.and_then(|g| g(r, c))
                };
                let Some(want) = want else { continue };
                let got = self.a[self.idx(r, c)];
                if got != want {
                    return Err(RankError::Failed(format!(
                        "{what}: rank {} at grid {:?}, local dimension {ld}, after {} operation(s): element ({r}, {c}) is {got}, expected {want} (verification failed)",
                        self.rank,
                        self.grid.pos(self.rank),
                        self.count
                    )));
                }
            }
        }
        Ok(())
    }
}

/// The binary-reflected Gray code of `i`: consecutive codes differ in one bit, so
/// ring neighbours land on hypercube neighbours (CoMet section 3.3).
pub(super) fn gray(i: usize) -> usize {
    i ^ (i >> 1)
}

/// The matrix operations.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MatrixOp {
    /// Fill the N, S, E, W guard strips from the neighbours (Figs. 11, 15).
    UpdateGuard,
    /// Shift the matrix one block north (Fig. 12).
    ShiftNorth,
    /// Shift the matrix one block east (Fig. 12).
    ShiftEast,
    /// Transpose: exchange with the transposed grid position, then transpose
    /// locally (Fig. 13).
    Transpose,
    /// Broadcast one global row down the grid columns (Figs. 14, 16).
    RowBroadcast,
    /// Broadcast one global column along the grid rows (column packing).
    ColBroadcast,
}

impl MatrixOp {
    /// The result's kernel name.
    pub fn name(self) -> &'static str {
        match self {
            MatrixOp::UpdateGuard => "comet-update-guard",
            MatrixOp::ShiftNorth => "comet-shift-north",
            MatrixOp::ShiftEast => "comet-shift-east",
            MatrixOp::Transpose => "comet-transpose",
            MatrixOp::RowBroadcast => "comet-row-broadcast",
            MatrixOp::ColBroadcast => "comet-col-broadcast",
        }
    }

    /// The largest message for local dimension `ld`, bytes.
    pub(super) fn max_message(self, ld: usize) -> usize {
        match self {
            MatrixOp::UpdateGuard | MatrixOp::RowBroadcast | MatrixOp::ColBroadcast => ld * 8,
            MatrixOp::ShiftNorth | MatrixOp::ShiftEast | MatrixOp::Transpose => {
                (ld + 2) * (ld + 2) * 8
            }
        }
    }

    /// Whether the time grows with the block's area (else with its side).
    pub(super) fn quadratic(self) -> bool {
        matches!(
            self,
            MatrixOp::ShiftNorth | MatrixOp::ShiftEast | MatrixOp::Transpose
        )
    }
}
