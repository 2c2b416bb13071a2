//! Call identity: every tool call in a conversation has an id no other call, result or answer
//! has, whatever ids the server sent.

use std::collections::HashSet;

use skillful_chat::{Content, Message};

/// The ids a conversation has used, and the ids given to new calls.
///
/// Approvals, approval answers and results are all keyed by call id, so a server (or a model that
/// writes its own ids) reusing an id would make an answer given for one call apply to another.
/// Every call of a new response keeps the server's id only when it is non-empty and new to the
/// conversation; otherwise it gets one of ours. The history then holds unique ids, which go back
/// on the wire, so strict servers still see every call answered exactly once.
#[derive(Debug, Default)]
pub(crate) struct CallIds {
    taken: HashSet<String>,
    next: u64,
}

impl CallIds {
    /// The ids `messages` use: of calls, approval requests, results and approval answers.
    pub(crate) fn of(messages: &[Message]) -> Self {
        let taken = messages
            .iter()
            .flat_map(|message| &message.contents)
            .filter_map(|content| match content {
                Content::FunctionCall(call) => Some(&call.call_id),
                Content::ApprovalRequest(request) => Some(&request.call.call_id),
                Content::FunctionResult(result) => Some(&result.call_id),
                Content::ApprovalResponse(response) => Some(&response.call_id),
                Content::Text { .. } => None,
            })
            .cloned()
            .collect();
        Self { taken, next: 0 }
    }

    /// Gives every call in `replies` that has no id, or an id used before, a fresh one.
    pub(crate) fn assign(&mut self, replies: &mut [Message]) {
        for content in replies.iter_mut().flat_map(|reply| &mut reply.contents) {
            let call = match content {
                Content::FunctionCall(call) => call,
                Content::ApprovalRequest(request) => &mut request.call,
                _ => continue,
            };
            if call.call_id.is_empty() || self.taken.contains(&call.call_id) {
                call.call_id = self.fresh();
            }
            self.taken.insert(call.call_id.clone());
        }
    }

    fn fresh(&mut self) -> String {
        loop {
            self.next += 1;
            let id = format!("call_{}", self.next);
            if !self.taken.contains(&id) {
                return id;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use skillful_chat::{FunctionCall, Role};

    fn calls(ids: &[&str]) -> Message {
        Message::new(
            Role::Assistant,
            ids.iter()
                .map(|id| {
                    Content::FunctionCall(FunctionCall {
                        call_id: (*id).to_owned(),
                        name: "t".to_owned(),
                        arguments: json!({}),
                    })
                })
                .collect(),
        )
    }

    fn ids(message: &Message) -> Vec<&str> {
        message
            .function_calls()
            .map(|call| call.call_id.as_str())
            .collect()
    }

    #[test]
    fn new_unique_ids_are_kept_and_the_others_replaced() {
        let history = [calls(&["a", "call_1"])];
        let mut ids_of = CallIds::of(&history);
        let mut replies = [calls(&["b", "", "a", "b", "call_2"])];
        ids_of.assign(&mut replies);
        assert_eq!(
            ids(&replies[0]),
            ["b", "call_2", "call_3", "call_4", "call_5"]
        );
    }
}
