//! Zero-sum matrix games: the optimal mixed strategies by linear programming (simplex).

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

/// Solves the game with payoff `a[i][j]` to the row player.
pub fn solve(a: &[Vec<f64>]) -> MatrixSolution {
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
        for i in 0..=m {
            if i != l && t[i][e].abs() > 0.0 {
                let f = t[i][e];
                let pivot_row = t[l].clone();
                for (x, y) in t[i].iter_mut().zip(&pivot_row) {
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
