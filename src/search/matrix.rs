//! Zero-sum matrix games: the optimal mixed strategies by linear programming (simplex), after
//! merging identical rows and columns; very large games that remain are solved approximately by
//! regret matching within a time budget (an anytime method: the CPU must answer within P).

use std::collections::HashMap;
use std::time::Instant;

/// The solution of a matrix game for the row player (who maximises).
#[derive(Clone, Debug, PartialEq)]
pub struct MatrixSolution {
    /// The game's value for the row player.
    pub value: f64,
    /// The row player's optimal mix.
    pub rows: Vec<f64>,
    /// The column player's optimal mix.
    pub cols: Vec<f64>,
}

/// Games with more cells than this (after merging identical rows and columns) are solved by
/// regret matching when a deadline is given.
pub const EXACT_CELLS: usize = 96 * 96;

/// The value of the `m`×`n` game with payoffs `cell(i, j)` to the row player when it has a
/// saddle point (a pure strategy for each side; always when one side has a single move),
/// found without a linear program; None when the value needs mixed strategies.
pub fn saddle_value(m: usize, n: usize, cell: impl Fn(usize, usize) -> f64) -> Option<f64> {
    // The row player's best guaranteed payoff, and the column player's best guaranteed loss.
    let worst_of_row = |i: usize| (0..n).map(|j| cell(i, j)).fold(f64::INFINITY, f64::min);
    let lower = (0..m).map(worst_of_row).fold(f64::NEG_INFINITY, f64::max);
    if m == 1 || n == 1 {
        return Some(lower);
    }
    let best_of_col = |j: usize| (0..m).map(|i| cell(i, j)).fold(f64::NEG_INFINITY, f64::max);
    let upper = (0..n).map(best_of_col).fold(f64::INFINITY, f64::min);
    (lower == upper).then_some(lower)
}

/// Solves a game some of whose cells come back to the position itself: with probability
/// `loops[i][j]` cell (i, j) leads to the same game again (those outcomes are left out of
/// `a`), worth `discount` × its value V. V is the fixed point V = val(a + discount·V·loops):
/// val moves by at most discount·V's step, so there is exactly one when `discount` < 1, and it
/// lies in [−1, 1] when the values do. Found by regula falsi (the Illinois variant) on that
/// interval (until `deadline`, if given); the strategies are those of the game at V. Without
/// the loops a cell that only stalls (attack against guard, forever) would be worth the
/// position's searched value, and a side that is ahead could stall as well as make progress.
pub fn solve_looping(
    a: &[Vec<f64>],
    loops: &[Vec<f64>],
    discount: f64,
    deadline: Option<Instant>,
) -> MatrixSolution {
    let at = |v: f64| {
        let m: Vec<Vec<f64>> = a
            .iter()
            .zip(loops)
            .map(|(r, l)| r.iter().zip(l).map(|(x, p)| x + discount * v * p).collect())
            .collect();
        let s = solve_within(&m, deadline);
        let f = s.value - v;
        (s, f)
    };
    let (mut lo, mut hi) = (-1.0f64, 1.0f64);
    let (s_lo, mut f_lo) = at(lo);
    if f_lo <= 0.0 {
        return s_lo;
    }
    let (s_hi, mut f_hi) = at(hi);
    if f_hi >= 0.0 {
        return s_hi;
    }
    let mut last = 0i8;
    let mut best = s_hi;
    for _ in 0..60 {
        let v = ((lo * f_hi - hi * f_lo) / (f_hi - f_lo)).clamp(lo, hi);
        let (s, f) = at(v);
        best = s;
        // Out of time: the closest estimate so far (the CPU must answer within its period).
        if f.abs() < 1e-12 || hi - lo < 1e-10 || deadline.is_some_and(|d| Instant::now() >= d) {
            break;
        }
        if f > 0.0 {
            lo = v;
            f_lo = f;
            if last == 1 {
                f_hi /= 2.0;
            }
            last = 1;
        } else {
            hi = v;
            f_hi = f;
            if last == -1 {
                f_lo /= 2.0;
            }
            last = -1;
        }
    }
    best
}

/// Solves the game with payoff `a[i][j]` to the row player exactly.
pub fn solve(a: &[Vec<f64>]) -> MatrixSolution {
    solve_within(a, None)
}

/// Solves the game; with a `deadline`, a game too large to solve exactly in time
/// ([`EXACT_CELLS`]) is solved approximately by regret matching until the deadline.
pub fn solve_within(a: &[Vec<f64>], deadline: Option<Instant>) -> MatrixSolution {
    let m = a.len();
    let n = a.first().map_or(0, Vec::len);
    // Identical rows (columns) are one strategy: solve the game between representatives.
    let rows = representatives(
        m,
        |i| a[i].iter().map(|x| x.to_bits()).collect(),
        |i, k| {
            a[i].iter()
                .zip(&a[k])
                .all(|(x, y)| x.to_bits() == y.to_bits())
        },
    );
    let cols = representatives(
        n,
        |j| a.iter().map(|r| r[j].to_bits()).collect(),
        |j, k| a.iter().all(|r| r[j].to_bits() == r[k].to_bits()),
    );
    let small: Vec<Vec<f64>> = rows
        .iter()
        .map(|&i| cols.iter().map(|&j| a[i][j]).collect())
        .collect();
    let s = match deadline {
        Some(d) if rows.len() * cols.len() > EXACT_CELLS => regret_matching(&small, d),
        _ => simplex(&small),
    };
    let spread = |reps: &[usize], p: &[f64], len: usize| {
        let mut v = vec![0.0; len];
        for (k, &i) in reps.iter().enumerate() {
            v[i] = p[k];
        }
        v
    };
    MatrixSolution {
        value: s.value,
        rows: spread(&rows, &s.rows, m),
        cols: spread(&cols, &s.cols, n),
    }
}

/// The first index of each distinct key among `0..len`, in order: by comparing pairs (`same`)
/// for the small games of a search or a table (no allocation per key), by hashing the keys
/// (`key`) for large ones.
fn representatives(
    len: usize,
    key: impl Fn(usize) -> Vec<u64>,
    same: impl Fn(usize, usize) -> bool,
) -> Vec<usize> {
    if len <= 24 {
        let mut reps: Vec<usize> = Vec::with_capacity(len);
        for i in 0..len {
            if !reps.iter().any(|&r| same(r, i)) {
                reps.push(i);
            }
        }
        return reps;
    }
    let mut seen: HashMap<Vec<u64>, ()> = HashMap::new();
    (0..len)
        .filter(|&i| seen.insert(key(i), ()).is_none())
        .collect()
}

/// Regret matching+ with linearly weighted averages, until `deadline` (at least a few
/// iterations, at most 20,000): an approximate equilibrium whose exploitability shrinks with
/// the iterations.
fn regret_matching(a: &[Vec<f64>], deadline: Instant) -> MatrixSolution {
    let m = a.len();
    let n = a.first().map_or(0, Vec::len);
    let (mut rr, mut rc) = (vec![0.0; m], vec![0.0; n]);
    let (mut avg_r, mut avg_c) = (vec![0.0; m], vec![0.0; n]);
    let strategy = |reg: &[f64]| {
        let s: f64 = reg.iter().sum();
        if s > 0.0 {
            reg.iter().map(|r| r / s).collect::<Vec<f64>>()
        } else {
            vec![1.0 / reg.len() as f64; reg.len()]
        }
    };
    for t in 1..=20_000u32 {
        if t > 8 && Instant::now() >= deadline {
            break;
        }
        let (x, y) = (strategy(&rr), strategy(&rc));
        // Row payoffs against y, column payoffs (losses) against x.
        let ur: Vec<f64> = a
            .iter()
            .map(|row| row.iter().zip(&y).map(|(v, p)| v * p).sum())
            .collect();
        let u: f64 = ur.iter().zip(&x).map(|(v, p)| v * p).sum();
        let uc: Vec<f64> = (0..n)
            .map(|j| -(0..m).map(|i| a[i][j] * x[i]).sum::<f64>())
            .collect();
        for i in 0..m {
            rr[i] = (rr[i] + ur[i] - u).max(0.0);
        }
        for j in 0..n {
            rc[j] = (rc[j] + uc[j] + u).max(0.0);
        }
        let w = t as f64;
        for i in 0..m {
            avg_r[i] += w * x[i];
        }
        for j in 0..n {
            avg_c[j] += w * y[j];
        }
    }
    let norm = |v: &mut Vec<f64>| {
        let s: f64 = v.iter().sum();
        for x in v.iter_mut() {
            *x /= s;
        }
    };
    norm(&mut avg_r);
    norm(&mut avg_c);
    let value = (0..m)
        .map(|i| (0..n).map(|j| avg_r[i] * a[i][j] * avg_c[j]).sum::<f64>())
        .sum();
    MatrixSolution {
        value,
        rows: avg_r,
        cols: avg_c,
    }
}

/// The exact solution by the simplex method (Bland's rule).
fn simplex(a: &[Vec<f64>]) -> MatrixSolution {
    let m = a.len();
    let n = a.first().map_or(0, Vec::len);
    if m == 0 || n == 0 {
        return MatrixSolution {
            value: 0.0,
            rows: vec![1.0; m.min(1)],
            cols: vec![1.0; n.min(1)],
        };
    }
    let min = a.iter().flatten().copied().fold(f64::INFINITY, f64::min);
    let shift = 1.0 - min.min(0.0);
    // Column player's LP: maximise Σy s.t. (A+shift) y <= 1, y >= 0. Tableau with slacks.
    let w = n + m + 1;
    let mut t = vec![vec![0.0; w]; m + 1];
    for i in 0..m {
        for j in 0..n {
            t[i][j] = a[i][j] + shift;
        }
        t[i][n + i] = 1.0;
        t[i][w - 1] = 1.0;
    }
    for x in t[m].iter_mut().take(n) {
        *x = -1.0;
    }
    let mut basis: Vec<usize> = (n..n + m).collect();
    for _ in 0..10_000 {
        // Bland's rule: the first column with a negative reduced cost.
        let Some(e) = (0..w - 1).find(|&j| t[m][j] < -1e-12) else {
            break;
        };
        let mut leave = None;
        let mut best = f64::INFINITY;
        for i in 0..m {
            if t[i][e] > 1e-12 {
                let r = t[i][w - 1] / t[i][e];
                if r < best - 1e-12
                    || (r < best + 1e-12 && leave.is_some_and(|l: usize| basis[i] < basis[l]))
                {
                    best = r;
                    leave = Some(i);
                }
            }
        }
        let Some(l) = leave else { break };
        let pv = t[l][e];
        for x in t[l].iter_mut() {
            *x /= pv;
        }
        let pivot_row = t[l].clone();
        for (i, row) in t.iter_mut().enumerate() {
            if i != l && row[e].abs() > 0.0 {
                let f = row[e];
                for (x, y) in row.iter_mut().zip(&pivot_row) {
                    *x -= f * y;
                }
            }
        }
        basis[l] = e;
    }
    let total = t[m][w - 1];
    let mut cols = vec![0.0; n];
    for (i, &b) in basis.iter().enumerate() {
        if b < n {
            cols[b] = t[i][w - 1];
        }
    }
    let mut rows: Vec<f64> = (0..m).map(|i| t[m][n + i]).collect();
    let norm = |v: &mut Vec<f64>| {
        let s: f64 = v.iter().map(|x| x.max(0.0)).sum();
        for x in v.iter_mut() {
            *x = if s > 0.0 { x.max(0.0) / s } else { 0.0 };
        }
    };
    norm(&mut cols);
    norm(&mut rows);
    let value = if total > 0.0 {
        1.0 / total - shift
    } else {
        0.0
    };
    MatrixSolution { value, rows, cols }
}

/// How much a best reply gains against the solution (0 for an exact equilibrium).
pub fn exploitability(a: &[Vec<f64>], s: &MatrixSolution) -> f64 {
    let m = a.len();
    let n = a.first().map_or(0, Vec::len);
    let best_col = (0..n)
        .map(|j| (0..m).map(|i| s.rows[i] * a[i][j]).sum::<f64>())
        .fold(f64::INFINITY, f64::min);
    let best_row = (0..m)
        .map(|i| (0..n).map(|j| s.cols[j] * a[i][j]).sum::<f64>())
        .fold(f64::NEG_INFINITY, f64::max);
    (best_row - best_col).max(0.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_looping_game_is_worth_its_fixed_point() {
        // Worked by hand: A against X stalls (comes back), A against Y wins, B is worth 0.5
        // whatever the column does. Stalling is worth 0.999·V, so the row takes B and V = 0.5.
        let a = vec![vec![0.0, 1.0], vec![0.5, 0.5]];
        let l = vec![vec![1.0, 0.0], vec![0.0, 0.0]];
        let s = solve_looping(&a, &l, 0.999, None);
        assert!((s.value - 0.5).abs() < 1e-9, "{s:?}");
        assert!(s.rows[1] > 1.0 - 1e-9, "{s:?}");
        // A game that only stalls is worth nothing.
        let s = solve_looping(&[vec![0.0]], &[vec![1.0]], 0.999, None);
        assert!(s.value.abs() < 1e-9, "{s:?}");
        // Generated games: the value found is a fixed point of val(a + d·V·loops), checked by
        // solving that game again; without loops it is the plain game's value.
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        for case in 0..300 {
            let (m, n) = (1 + next() as usize % 4, 1 + next() as usize % 4);
            let mut a = vec![vec![0.0; n]; m];
            let mut l = vec![vec![0.0; n]; m];
            for i in 0..m {
                for j in 0..n {
                    let back = if case % 3 == 0 || next() % 2 == 0 {
                        0.0
                    } else {
                        (next() % 5) as f64 / 4.0
                    };
                    l[i][j] = back;
                    a[i][j] = (1.0 - back) * ((next() % 9) as f64 / 4.0 - 1.0);
                }
            }
            let s = solve_looping(&a, &l, 0.999, None);
            let at: Vec<Vec<f64>> = (0..m)
                .map(|i| {
                    (0..n)
                        .map(|j| a[i][j] + 0.999 * s.value * l[i][j])
                        .collect()
                })
                .collect();
            let again = solve(&at).value;
            assert!(
                (again - s.value).abs() < 1e-7,
                "case {case}: V {} but val {again}: {a:?} {l:?}",
                s.value
            );
            assert!((-1.0..=1.0).contains(&s.value), "case {case}: {}", s.value);
            if l.iter().flatten().all(|&p| p == 0.0) {
                assert!((solve(&a).value - s.value).abs() < 1e-9, "case {case}");
            }
        }
    }

    #[test]
    fn a_saddle_value_is_the_linear_programs_value() {
        // Generated games (small integers make ties and saddle points common): whenever a
        // saddle point is read off, the simplex agrees; rock-paper-scissors has none.
        let mut x = 0x2545_F491_4F6C_DD1Du64;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x % 5) as f64 - 2.0
        };
        let mut found = 0;
        for round in 0..2000 {
            let (m, n) = (1 + round % 4, 1 + (round / 4) % 4);
            let a: Vec<Vec<f64>> = (0..m).map(|_| (0..n).map(|_| next()).collect()).collect();
            if let Some(v) = saddle_value(m, n, |i, j| a[i][j]) {
                found += 1;
                assert!((v - solve(&a).value).abs() < 1e-9, "{a:?}");
            }
        }
        assert!(found > 500, "{found}");
        let rps = [[0.0, -1.0, 1.0], [1.0, 0.0, -1.0], [-1.0, 1.0, 0.0]];
        assert_eq!(saddle_value(3, 3, |i, j| rps[i][j]), None);
    }

    #[test]
    fn rock_paper_scissors_is_a_third_each_with_value_zero() {
        let a = vec![
            vec![0.0, -1.0, 1.0],
            vec![1.0, 0.0, -1.0],
            vec![-1.0, 1.0, 0.0],
        ];
        let s = solve(&a);
        assert!(s.value.abs() < 1e-9);
        for p in s.rows.iter().chain(&s.cols) {
            assert!((p - 1.0 / 3.0).abs() < 1e-9);
        }
        assert!(exploitability(&a, &s) < 1e-9);
    }

    #[test]
    fn a_dominant_row_is_played_purely_and_random_games_are_unexploitable() {
        let a = vec![vec![3.0, 2.0], vec![1.0, 0.0]];
        let s = solve(&a);
        assert!(
            (s.value - 2.0).abs() < 1e-9
                && (s.rows[0] - 1.0).abs() < 1e-9
                && (s.cols[1] - 1.0).abs() < 1e-9
        );
        let mut x = 12345u64;
        for _ in 0..200 {
            x = crate::engine::rng::mix(x);
            let (m, n) = (1 + (x % 4) as usize, 1 + (x / 7 % 4) as usize);
            let mut r = || {
                x = crate::engine::rng::mix(x);
                (x % 2001) as f64 / 1000.0 - 1.0
            };
            let a: Vec<Vec<f64>> = (0..m).map(|_| (0..n).map(|_| r()).collect()).collect();
            let s = solve(&a);
            assert!(exploitability(&a, &s) < 1e-7, "{a:?} {s:?}");
        }
    }
}
