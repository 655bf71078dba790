//! Format upgrades: a config written in an older format ([`CONFIG_VERSION`]) is brought to the
//! current one with the meaning its keys had then, so that a run directory's saved config
//! resumes the run it started.
use super::*;
use super::validate::check;

impl RunConfig {
    /// Brings a config of an older format to the current one, keeping what its keys meant
    /// then; `locator` says which keys the text wrote. Format 1 (see [`CONFIG_VERSION`]):
    /// - no `training.root_value_weight`: the build had none, the value learnt the game's
    ///   result alone, so the weight is 0;
    /// - an odd number of evaluation or gating games: its builds rounded it up to the next
    ///   even one (the pairs), so that is what it becomes;
    /// - a Gumbel self-play root (with noise) under a schedule with a temperature other than
    ///   1: some builds of format 1 ignored the schedule, later ones honoured it, and the text
    ///   cannot say which; this is an error that asks for the choice to be written.
    ///
    /// Format 2: no `skip_forced` in a search block: its builds had none and evaluated forced
    /// positions, so it is false.
    ///
    /// Format 3: the keys the embedded default's length changed take the values they had:
    /// no `iterations` 40, no `training.lr` the cosine over 2,400 steps, no
    /// `evaluation.every` or `checkpoints.every` 5.
    ///
    /// Format 4: no `solver` in a search block: its builds had no MCTS-solver, so it is false.
    ///
    /// Format 5: no `overlap`: its builds let self-play and SGD take turns, so it is false.
    pub(super) fn upgrade(&mut self, locator: &Locator) -> Result<(), Invalid> {
        if self.config_version == 1 {
            if !locator.contains("training.root_value_weight") {
                self.training.root_value_weight = 0.0;
            }
            let evaluation = &mut self.evaluation;
            evaluation.games = evaluation.games.next_multiple_of(2);
            if let Some(gating) = &mut evaluation.gating {
                gating.games = gating.games.map(|games| games.next_multiple_of(2));
            }
            let search = &self.self_play.search;
            let cooled = search.temperature.iter().any(|step| step.temperature != 1.0);
            check(
                !(search.root_policy == RootPolicy::Gumbel && search.gumbel.noise && cooled),
                "self_play.search.temperature",
                "this config is of format 1 (written without config_version, by a build up to \
                 2026-11-30), whose Gumbel root ignored this schedule in some builds (noise at \
                 every move) and honoured it in later ones; say which the run had: add \
                 `config_version: 2` at the top to honour the schedule, or make it \
                 [{from_move: 0, temperature: 1.0}] for noise at every move",
            )?;
            self.config_version = 2;
        }
        if self.config_version == 2 {
            self.switch_off_where_unwritten(locator, "skip_forced", |search| &mut search.skip_forced);
            self.config_version = 3;
        }
        if self.config_version == 3 {
            if !locator.contains("iterations") {
                self.iterations = 40;
            }
            if !locator.contains("training.lr") {
                // Left out, it is the default cosine, of which only the length changed.
                if let LrSchedule::Cosine { total_steps, .. } = &mut self.training.lr {
                    *total_steps = 2_400;
                }
            }
            if !locator.contains("evaluation.every") {
                self.evaluation.every = 5;
            }
            if !locator.contains("checkpoints.every") {
                self.checkpoints.every = 5;
            }
            self.config_version = 4;
        }
        if self.config_version == 4 {
            self.switch_off_where_unwritten(locator, "solver", |search| &mut search.solver);
            self.config_version = 5;
        }
        if self.config_version == 5 {
            if !locator.contains("overlap") {
                self.overlap = false;
            }
            self.config_version = 6;
        }
        Ok(())
    }

    /// Sets the search switch `key` false in both search blocks wherever the text did not
    /// write it: a switch a format added, whose builds before it searched without it.
    fn switch_off_where_unwritten(&mut self, locator: &Locator, key: &str, switch: impl Fn(&mut SearchConfig) -> &mut bool) {
        for (block, search) in [("self_play.search", &mut self.self_play.search), ("evaluation.search", &mut self.evaluation.search)] {
            if !locator.contains(&format!("{block}.{key}")) {
                *switch(search) = false;
            }
        }
    }
}
