//! BBR v1's BtlBw filter: a windowed max over packet-timed rounds, in
//! Linux's form and ns-3.37's.

/// Kathleen Nichols' windowed max filter (three samples; section 4.1.1.2:
/// BtlBw is "the windowed maximum" of the delivery rate), keyed by round count.
///
/// Two forms of the filter differ where two samples tie. Linux's
/// (lib/win_minmax.c, which the draft follows) takes a new second or
/// third best after a quarter or half window when the kept samples are one
/// (equal times) and counts the window from the best's time. ns-3.37's
/// (`WindowedFilter`, from Chromium's QUIC) asks whether their values are
/// equal and counts from the second's and third's own times.
#[derive(Clone, Copy, Debug, Default)]
pub struct MaxFilter {
    s: [(u64, f64); 3],
    ties: Ties,
}

/// When a [`MaxFilter`] takes a new second or third best: the two forms
/// of the filter its doc names.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Ties {
    /// Linux's lib/win_minmax.c: the kept samples are one when their
    /// times are equal, the window counted from the best's time.
    #[default]
    Time,
    /// Chromium's QUIC `WindowedFilter` (ns-3.37's): when their values are
    /// equal, counted from the second's and third's own times.
    Value,
}

impl MaxFilter {
    /// An empty filter judging ties by `ties`.
    pub fn new(ties: Ties) -> MaxFilter {
        MaxFilter {
            s: [(0, 0.0); 3],
            ties,
        }
    }

    /// The windowed maximum.
    pub fn get(&self) -> f64 {
        self.s[0].1
    }

    /// A sample `v` at time (round) `t`; the window is `win` rounds.
    pub fn update(&mut self, t: u64, v: f64, win: u64) {
        if v >= self.s[0].1 || t.saturating_sub(self.s[2].0) > win {
            self.s = [(t, v); 3];
            return;
        }
        if v >= self.s[1].1 {
            self.s[1] = (t, v);
            self.s[2] = (t, v);
        } else if v >= self.s[2].1 {
            self.s[2] = (t, v);
        }
        // Age the best samples out of the window.
        let dt = t - self.s[0].0;
        if dt > win {
            self.s[0] = self.s[1];
            self.s[1] = self.s[2];
            self.s[2] = (t, v);
            if t - self.s[0].0 > win {
                self.s[0] = self.s[1];
                self.s[1] = self.s[2];
                self.s[2] = (t, v);
            }
        } else if self.ties == Ties::Value {
            //= ns-3.37 windowed-filter.h Update: "if (estimates_[1].sample ==
            //= estimates_[0].sample && new_time - estimates_[1].time >
            //= window_length_ >> 2)" take a second best; "if
            //= (estimates_[2].sample == estimates_[1].sample && new_time -
            //= estimates_[2].time > window_length_ >> 1)" a third.
            if self.s[1].1 == self.s[0].1 && t - self.s[1].0 > win / 4 {
                self.s[1] = (t, v);
                self.s[2] = (t, v);
            } else if self.s[2].1 == self.s[1].1 && t - self.s[2].0 > win / 2 {
                self.s[2] = (t, v);
            }
        } else if self.s[1].0 == self.s[0].0 && dt > win / 4 {
            //= lib/win_minmax.c minmax_subwin_update: "if (unlikely(m->s[1].t
            //= == m->s[0].t) && dt > win / 4)", then "m->s[2].t ==
            //= m->s[1].t && dt > win / 2".
            self.s[1] = (t, v);
            self.s[2] = (t, v);
        } else if self.s[2].0 == self.s[1].0 && dt > win / 2 {
            self.s[2] = (t, v);
        }
    }
}
