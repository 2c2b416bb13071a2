//! Replaying `run_skill_script` calls that repeat an idempotency key: retries and duplicate model
//! calls must not run a script (and repeat its writes) twice.

use std::sync::{Arc, Mutex, PoisonError};

use indexmap::IndexMap;

/// How many idempotency keys a provider remembers when not configured, across all sessions.
pub const DEFAULT_IDEMPOTENCY_KEYS: usize = 1000;

/// What a key was first used for: the skill and script (by their exact names) and the arguments.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Call {
    pub(crate) skill: String,
    pub(crate) script: String,
    pub(crate) arguments: serde_json::Value,
}

/// One key's call, and its result once the script has run successfully.
#[derive(Debug)]
pub(crate) struct Slot {
    call: Call,
    /// Held while the first call runs, so that a concurrent repeat waits for its result.
    pub(crate) result: tokio::sync::Mutex<Option<String>>,
}

/// A session (`None` for the shared one) and a key in it.
type SlotId = (Option<String>, String);

/// The keys of one provider: `(session, key)` to its slot, least recently used first. A session
/// is a [`SourceContext`](skillful_core::SourceContext)'s isolation key (`None` is one shared
/// session).
#[derive(Debug)]
pub(crate) struct Replays {
    capacity: usize,
    slots: Mutex<IndexMap<SlotId, Arc<Slot>>>,
}

impl Replays {
    pub(crate) fn new(capacity: usize) -> Self {
        Self {
            capacity,
            slots: Mutex::new(IndexMap::new()),
        }
    }

    /// The slot of `key` in `session` for `call`: the existing one when the key was used for the
    /// same call, a new one when the key is new (forgetting the least recently used key past the
    /// capacity).
    ///
    /// # Errors
    /// The call the key was first used for, when it is not `call`.
    pub(crate) fn claim(
        &self,
        session: Option<&str>,
        key: &str,
        call: Call,
    ) -> Result<Arc<Slot>, Call> {
        let mut slots = self.slots.lock().unwrap_or_else(PoisonError::into_inner);
        let id = (session.map(str::to_owned), key.to_owned());
        if let Some(slot) = slots.shift_remove(&id) {
            let first = slot.call.clone();
            slots.insert(id, Arc::clone(&slot));
            return if first == call { Ok(slot) } else { Err(first) };
        }
        let slot = Arc::new(Slot {
            call,
            result: tokio::sync::Mutex::new(None),
        });
        slots.insert(id, Arc::clone(&slot));
        if slots.len() > self.capacity
            && let Some(((session, key), _)) = slots.shift_remove_index(0)
        {
            tracing::debug!(?session, %key, "forgot the least recently used idempotency key");
        }
        Ok(slot)
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn call(script: &str, arguments: serde_json::Value) -> Call {
        Call {
            skill: "s".into(),
            script: script.into(),
            arguments,
        }
    }

    #[test]
    fn a_key_gives_the_same_slot_for_the_same_call_and_refuses_another() {
        let replays = Replays::new(10);
        let first = replays
            .claim(None, "k", call("a", json!({"x": 1, "y": 2})))
            .unwrap();
        let again = replays
            .claim(None, "k", call("a", json!({"y": 2, "x": 1})))
            .unwrap();
        assert!(Arc::ptr_eq(&first, &again));
        assert_eq!(
            replays
                .claim(None, "k", call("b", json!({"x": 1, "y": 2})))
                .unwrap_err(),
            call("a", json!({"x": 1, "y": 2}))
        );
        assert!(
            replays
                .claim(None, "k", call("a", json!({"x": 2})))
                .is_err()
        );
    }

    #[test]
    fn sessions_have_their_own_keys() {
        let replays = Replays::new(10);
        let shared = replays.claim(None, "k", call("a", json!(null))).unwrap();
        let tenant = replays
            .claim(Some("t"), "k", call("b", json!(null)))
            .unwrap();
        assert!(!Arc::ptr_eq(&shared, &tenant));
    }

    #[test]
    fn the_least_recently_used_key_is_forgotten_past_the_capacity() {
        let replays = Replays::new(2);
        let one = replays.claim(None, "1", call("a", json!(null))).unwrap();
        let two = replays.claim(None, "2", call("a", json!(null))).unwrap();
        // Using "1" again makes "2" the least recently used.
        assert!(Arc::ptr_eq(
            &one,
            &replays.claim(None, "1", call("a", json!(null))).unwrap()
        ));
        replays.claim(None, "3", call("a", json!(null))).unwrap();
        let two_again = replays.claim(None, "2", call("a", json!(null))).unwrap();
        assert!(!Arc::ptr_eq(&two, &two_again));
        // And "1" has now been forgotten in turn.
        let one_again = replays.claim(None, "1", call("a", json!(null))).unwrap();
        assert!(!Arc::ptr_eq(&one, &one_again));
    }
}
