//! Choosing the records of the conversation the model saw: the main chain of the record tree.

use std::collections::{HashMap, HashSet};

use super::Record;
use crate::Warning;

/// The records of the conversation the model saw.
pub(super) struct Chain {
    /// Record indices, in file order, including records that only link (system, progress).
    pub(super) records: Vec<usize>,
    /// Every user and assistant line is a sidechain line (an `agent-*.jsonl` file): sidechain
    /// lines then make the conversation.
    pub(super) sidechain_file: bool,
}

/// The records of the conversation the model saw.
///
/// The chain is the path from the last candidate line (a user or assistant line, not a
/// sidechain unless every user and assistant line is one) up through parent links, plus the
/// fan-out of parallel tool calls: assistant lines sharing a `message.id` with an assistant line
/// on the chain, and tool-result lines answering a tool call on the chain, that hang off the
/// chain.
pub(super) fn main_chain(records: &[Record], warnings: &mut Vec<Warning>) -> Chain {
    let sidechain_file = records.iter().any(Record::is_message)
        && records
            .iter()
            .filter(|r| r.is_message())
            .all(|r| r.sidechain);
    let candidate = |r: &Record| r.is_message() && (sidechain_file || !r.sidechain);
    for r in records.iter().filter(|r| candidate(r) && r.uuid.is_none()) {
        warnings.push(Warning::at_line(
            r.line,
            format!("{} line has no uuid, skipped", r.kind),
        ));
    }
    let candidate = |r: &Record| candidate(r) && r.uuid.is_some();
    let Some(leaf) = records.iter().rposition(candidate) else {
        return Chain {
            records: Vec::new(),
            sidechain_file,
        };
    };
    let by_uuid: HashMap<&str, usize> = records
        .iter()
        .enumerate()
        .filter_map(|(i, r)| Some((r.uuid.as_deref()?, i)))
        .collect();
    let mut on_chain = vec![false; records.len()];

    // The path from the leaf to the root.
    let mut current = leaf;
    while let Some(record) = records.get(current) {
        if let Some(flag) = on_chain.get_mut(current) {
            *flag = true;
        }
        let Some(parent) = &record.parent else {
            break;
        };
        match by_uuid.get(parent.as_str()) {
            Some(&next) if on_chain.get(next).copied().unwrap_or(true) => {
                warnings.push(Warning::at_line(
                    record.line,
                    format!("parent {parent} makes a cycle; the conversation starts here"),
                ));
                break;
            }
            Some(&next) => current = next,
            None => {
                warnings.push(Warning::at_line(
                    record.line,
                    format!("parent {parent} is not in the file; the conversation starts here"),
                ));
                break;
            }
        }
    }

    // The fan-out of parallel tool calls.
    let mut children: Vec<Vec<usize>> = vec![Vec::new(); records.len()];
    for (i, r) in records.iter().enumerate() {
        let parent = r.parent.as_deref().and_then(|p| by_uuid.get(p));
        if let Some(list) = parent.and_then(|&p| children.get_mut(p)) {
            list.push(i);
        }
    }
    let chain_ids = |on_chain: &[bool]| -> Vec<usize> {
        on_chain
            .iter()
            .enumerate()
            .filter_map(|(i, &on)| on.then_some(i))
            .collect()
    };
    let path_message_ids: HashSet<&str> = chain_ids(&on_chain)
        .into_iter()
        .filter_map(|i| records.get(i))
        .filter(|r| r.kind == "assistant" && candidate(r))
        .filter_map(Record::message_id)
        .collect();
    grow(&mut on_chain, &children, |i| {
        records.get(i).is_some_and(|r| {
            r.kind == "assistant"
                && candidate(r)
                && r.message_id()
                    .is_some_and(|id| path_message_ids.contains(id))
        })
    });
    let chain_records = |on_chain: &[bool]| -> Vec<&Record> {
        chain_ids(on_chain)
            .into_iter()
            .filter_map(|i| records.get(i))
            .filter(|r| candidate(r))
            .collect()
    };
    let calls: HashSet<&str> = chain_records(&on_chain)
        .into_iter()
        .filter(|r| r.kind == "assistant")
        .flat_map(Record::tool_use_ids)
        .collect();
    let mut answered: HashSet<&str> = chain_records(&on_chain)
        .into_iter()
        .filter(|r| r.kind == "user")
        .filter_map(Record::tool_result_ids)
        .flatten()
        .collect();
    grow(&mut on_chain, &children, |i| {
        let Some(r) = records.get(i).filter(|r| r.kind == "user" && candidate(r)) else {
            return false;
        };
        let Some(ids) = r.tool_result_ids() else {
            return false;
        };
        let fits = ids
            .iter()
            .all(|id| calls.contains(id) && !answered.contains(id));
        if fits {
            answered.extend(ids);
        }
        fits
    });

    let mut off_chain = records
        .iter()
        .zip(&on_chain)
        .filter(|(r, on)| !**on && candidate(r));
    if let Some((first, _)) = off_chain.next() {
        let count = 1 + off_chain.count();
        warnings.push(Warning::at_line(
            first.line,
            format!(
                "{count} user/assistant {} not on the main chain (abandoned branch), skipped",
                if count == 1 { "line is" } else { "lines are" }
            ),
        ));
    }
    Chain {
        records: chain_ids(&on_chain),
        sidechain_file,
    }
}

/// Adds to `on_chain` every child (transitively) of a chain record for which `accept` holds.
fn grow(on_chain: &mut [bool], children: &[Vec<usize>], mut accept: impl FnMut(usize) -> bool) {
    let mut queue: Vec<usize> = on_chain
        .iter()
        .enumerate()
        .filter_map(|(i, &on)| on.then_some(i))
        .collect();
    queue.reverse();
    while let Some(node) = queue.pop() {
        for &child in children.get(node).into_iter().flatten() {
            if on_chain.get(child).copied().unwrap_or(true) || !accept(child) {
                continue;
            }
            if let Some(flag) = on_chain.get_mut(child) {
                *flag = true;
            }
            queue.push(child);
        }
    }
}
