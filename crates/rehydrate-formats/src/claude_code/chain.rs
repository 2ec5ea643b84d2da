//! Choosing the records of the conversation the model saw: the main chain of the record tree.

use std::collections::{HashMap, HashSet};

use super::{Kind, Record, Records};
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
pub(super) fn main_chain(records: &Records<'_>, warnings: &mut Vec<Warning>) -> Chain {
    let sidechain_file = records.iter().any(|(_, r)| r.is_message())
        && records
            .iter()
            .filter(|(_, r)| r.is_message())
            .all(|(_, r)| r.sidechain);
    let candidate = |r: &Record<'_>| r.is_message() && (sidechain_file || !r.sidechain);
    for (_, r) in records
        .iter()
        .filter(|(_, r)| candidate(r) && r.uuid.is_none())
    {
        warnings.push(Warning::at_line(
            r.line,
            format!("{} line has no uuid, skipped", r.kind_name()),
        ));
    }
    let candidate = |r: &Record<'_>| candidate(r) && r.uuid.is_some();
    let Some((leaf, _)) = records.iter().rev().find(|(_, r)| candidate(r)) else {
        return Chain {
            records: Vec::new(),
            sidechain_file,
        };
    };
    let by_uuid: HashMap<&str, usize> = records
        .iter()
        .filter_map(|(i, r)| Some((r.uuid.as_deref()?, i)))
        .collect();
    let mut on_chain = vec![false; records.len()];

    // The path from the leaf to the root.
    let mut current = leaf;
    while let Some(record) = records.get(current) {
        if let Some(flag) = on_chain.get_mut(current) {
            *flag = true;
        }
        let Some(parent) = record.parent.as_deref() else {
            break;
        };
        match by_uuid.get(parent) {
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
    let children = Children::new(records, &by_uuid);
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
        .filter(|r| r.kind == Kind::Assistant && candidate(r))
        .filter_map(Record::message_id)
        .collect();
    grow(&mut on_chain, &children, |i| {
        records.get(i).is_some_and(|r| {
            r.kind == Kind::Assistant
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
        .filter(|r| r.kind == Kind::Assistant)
        .flat_map(Record::tool_use_ids)
        .collect();
    let mut answered: HashSet<&str> = chain_records(&on_chain)
        .into_iter()
        .filter(|r| r.kind == Kind::User)
        .filter_map(Record::tool_result_ids)
        .flatten()
        .collect();
    grow(&mut on_chain, &children, |i| {
        let Some(r) = records
            .get(i)
            .filter(|r| r.kind == Kind::User && candidate(r))
        else {
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
        .filter(|((_, r), on)| !**on && candidate(r));
    if let Some(((_, first), _)) = off_chain.next() {
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

/// The children of each record (the records whose parent it is), in file order, in one list.
struct Children {
    /// `list[start[i]..start[i + 1]]` are the children of record `i`.
    start: Vec<usize>,
    list: Vec<usize>,
}

impl Children {
    fn new(records: &Records<'_>, by_uuid: &HashMap<&str, usize>) -> Children {
        let parent_of = |r: &Record<'_>| r.parent.as_deref().and_then(|p| by_uuid.get(p).copied());
        let mut start = vec![0; records.len() + 1];
        for p in records.iter().filter_map(|(_, r)| parent_of(r)) {
            if let Some(count) = start.get_mut(p + 1) {
                *count += 1;
            }
        }
        for i in 1..start.len() {
            start[i] += start[i - 1];
        }
        // Filled front to back per parent, so each parent's children keep file order.
        let mut next = start.clone();
        let mut list = vec![0; start.last().copied().unwrap_or(0)];
        for (i, r) in records.iter() {
            if let Some(slot) = parent_of(r).and_then(|p| next.get_mut(p)) {
                if let Some(entry) = list.get_mut(*slot) {
                    *entry = i;
                }
                *slot += 1;
            }
        }
        Children { start, list }
    }

    /// The children of record `i`.
    fn of(&self, i: usize) -> &[usize] {
        match (self.start.get(i), self.start.get(i + 1)) {
            (Some(&from), Some(&to)) => self.list.get(from..to).unwrap_or_default(),
            _ => &[],
        }
    }
}

/// Adds to `on_chain` every child (transitively) of a chain record for which `accept` holds.
fn grow(on_chain: &mut [bool], children: &Children, mut accept: impl FnMut(usize) -> bool) {
    let mut queue: Vec<usize> = on_chain
        .iter()
        .enumerate()
        .filter_map(|(i, &on)| on.then_some(i))
        .collect();
    queue.reverse();
    while let Some(node) = queue.pop() {
        for &child in children.of(node) {
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
