//! [`Session`]: one live agent session, recorded in a durable session store as it happens,
//! projected into its reduced view, and answering the model's `expand_reduction` and
//! `sidecar_search` calls.

use std::path::Path;
use std::sync::{Mutex, PoisonError};

use rehydrate_formats::{Api, ExportFormat};
use rehydrate_intrinsics::{CallContext, Intrinsics, ToolFormat, ToolResult, tool_definitions};
use rehydrate_model::{Message, ReductionLog, filter_reasoning_artifacts};
use rehydrate_reduce::{CacheState, Reducer, ReductionPolicy, View};
use rehydrate_sidecar::{Sources, VerifiedCache, export_session, export_shown};
use rehydrate_store::{MissReason, SessionStore, StoreBackend, StoreState, SyncPolicy};

use crate::error::Error;

/// One live agent session: a session store ([`rehydrate_store::SessionStore`], one
/// append-only file; docs/FORMATS.md, "Session store") that records every message and
/// reduction, and a [`Reducer`] that keeps the reduced view the model is sent.
///
/// A host pushes each turn's new messages with [`Session::push`] before it calls its model,
/// sends [`Session::request_body`] (or the messages of [`Session::view`]), advertises
/// [`Session::tools`], and answers the model's `expand_reduction` and `sidecar_search` calls
/// with [`Session::call`], pushing each call and its result like any other messages. The store
/// always holds what the reducer holds: the messages pushed and every reduction minted, in the
/// order they were minted, so [`Session::open`] resumes the same session after a restart or a
/// crash, with the same view and log.
///
/// Two message lists are kept: the *history* ([`Session::history`], the minted view every
/// reduction points into; the reducer's) and the *recorded* messages
/// ([`Session::state`]`.messages`, the store's). They are equal but for reasoning artifacts:
/// after [`Session::switch_model`] the history drops the earlier model's reasoning, the store
/// keeps it. Both are held in memory, so a session costs about twice the bytes of its messages.
///
/// The store holds the file's exclusive advisory lock while the `Session` lives: a second
/// `Session` (in this process or another) on the same file is refused with a locked error.
///
/// # Example
///
/// ```
/// use rehydrate::{Message, ReductionPolicy, Role, Session, SyncPolicy};
///
/// # let dir = std::env::temp_dir().join(format!("rehydrate-session-doc-{}", std::process::id()));
/// # std::fs::create_dir_all(&dir)?;
/// # let path = dir.join("session.rhyd");
/// # let _ = std::fs::remove_file(&path);
/// let mut session = Session::create(&path, ReductionPolicy::default(), SyncPolicy::Never)?;
/// assert_eq!(session.push([Message::text(Role::User, "hi")])?, 0);
/// assert_eq!(session.view().len(), 1);
/// drop(session);
/// let session = Session::open(&path, ReductionPolicy::default(), SyncPolicy::Never)?;
/// assert_eq!(session.history(), [Message::text(Role::User, "hi")]);
/// # drop(session);
/// # std::fs::remove_dir_all(&dir)?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug)]
pub struct Session {
    store: SessionStore,
    reducer: Reducer,
    /// The reductions [`Session::open`] minted and recorded because the store lacked them.
    recovered: usize,
    /// Set when a reduction the reducer minted could not be recorded (or a push could not be
    /// undone): the store no longer matches, so nothing more is recorded.
    diverged: bool,
    /// The reductions `sidecar_search` verified against the history: the history only grows
    /// between a rewind or a model switch (which clear it), so they are not hashed again.
    verified: Mutex<VerifiedCache>,
}

impl Session {
    /// Creates a new session whose store is a new file at `path` (which must not exist),
    /// locked and with its header synced; its appends reach the disk as `sync` says. The
    /// session starts empty: no message, an empty log.
    ///
    /// # Errors
    ///
    /// [`Error::Store`]: the file exists or cannot be created (an I/O error naming `path`), or
    /// another writer locked it first.
    pub fn create(
        path: impl AsRef<Path>,
        policy: ReductionPolicy,
        sync: SyncPolicy,
    ) -> Result<Session, Error> {
        let store = SessionStore::create(path.as_ref(), sync)?;
        Ok(Session::new(store, policy))
    }

    /// [`Session::create`] with the store in `backend` (a host's database or object store, or
    /// a [`rehydrate_store::MemoryBackend`]), which must hold no byte.
    ///
    /// # Errors
    ///
    /// [`Error::Store`]: the backend holds bytes already, or cannot be read, written or
    /// synced, each naming [`StoreBackend::name`].
    pub fn create_in(
        backend: impl StoreBackend + 'static,
        policy: ReductionPolicy,
        sync: SyncPolicy,
    ) -> Result<Session, Error> {
        let store = SessionStore::create_in(backend, sync)?;
        Ok(Session::new(store, policy))
    }

    fn new(store: SessionStore, policy: ReductionPolicy) -> Session {
        Session {
            store,
            reducer: Reducer::new(policy),
            recovered: 0,
            diverged: false,
            verified: Mutex::default(),
        }
    }

    /// Opens the session whose store is at `path`, locks it, reloads its state and resumes
    /// projecting it under `policy`: the reducer continues from the recorded log
    /// ([`Reducer::resume`]) and is fed the recorded messages, with the reasoning artifacts
    /// removed from the first [`StoreState::reasoning_dropped`] of them, as the history held
    /// them after the latest model switch.
    ///
    /// Reopened with the policy it was recorded under, a session has the view and log it had
    /// when it was closed: every recorded reduction is reused where it verifies, and nothing is
    /// minted. The recorded history counts as cached ([`CacheState::Prefix`] of its length):
    /// under cache-aware minting the reductions that were waiting for their batch are decided
    /// again and wait again (no batch is shown on open), so the view sent next still begins
    /// with the view sent last. They are decided from the whole history at once, so one may
    /// be decided otherwise than the live session decided it turn by turn
    /// ([`Reducer::project_cached`]). A reduction the projection mints on open is one the store does not hold (the
    /// process stopped between recording messages and their reductions, or `policy` reduces
    /// more than the one recorded with): it is recorded at once, and [`Session::recovered`]
    /// counts them, so a host can tell that its view changed. The store does not record the
    /// policy: the host keeps it (with the store's path) and opens with the same one.
    ///
    /// Costs a whole projection: linear in the bytes of the recorded messages (every tool
    /// result is hashed again), on up to 8 threads for a large session.
    ///
    /// # Errors
    ///
    /// [`Error::Store`] when the file is missing or unreadable, is not a session store, ends
    /// with a torn tail ([`crate::store::repair`] truncates it; nothing is truncated
    /// unasked), is corrupt, or is locked by another writer, each naming `path`, or when a
    /// recovered reduction cannot be recorded; [`Error::Ordinal`] when a recorded reduction's
    /// id names another ordinal than its log position (a log no reducer appended to).
    pub fn open(
        path: impl AsRef<Path>,
        policy: ReductionPolicy,
        sync: SyncPolicy,
    ) -> Result<Session, Error> {
        Session::resume(SessionStore::open(path.as_ref(), sync)?, policy)
    }

    /// [`Session::open`] of the store `backend` holds.
    ///
    /// # Errors
    ///
    /// As [`Session::open`], each naming [`StoreBackend::name`] (no lock is taken but the
    /// backend's own).
    pub fn open_in(
        backend: impl StoreBackend + 'static,
        policy: ReductionPolicy,
        sync: SyncPolicy,
    ) -> Result<Session, Error> {
        Session::resume(SessionStore::open_in(backend, sync)?, policy)
    }

    /// The session of a store just opened: its reducer resumed from the recorded log and fed
    /// the recorded messages (see [`Session::open`]).
    fn resume(store: SessionStore, policy: ReductionPolicy) -> Result<Session, Error> {
        let state = store.state();
        if let Some((position, r)) = state
            .log
            .reductions
            .iter()
            .enumerate()
            .find(|(position, r)| r.id.ordinal() != *position)
        {
            return Err(Error::Ordinal {
                path: store.path().to_path_buf(),
                position,
                id: r.id.to_string(),
            });
        }
        let mut history = state.messages.clone();
        let dropped = usize::try_from(state.reasoning_dropped)
            .unwrap_or(usize::MAX)
            .min(history.len());
        filter_reasoning_artifacts(&mut history[..dropped]);
        let mut reducer = Reducer::resume(policy, state.log.clone());
        let cached = CacheState::Prefix(history.len());
        let recovered = reducer.project_cached(history, cached);
        let mut session = Session {
            store,
            reducer,
            recovered,
            diverged: false,
            verified: Mutex::default(),
        };
        session.record_minted(recovered)?;
        Ok(session)
    }

    /// Records `messages` (appended to the session in order) in the store, projects them, and
    /// records the reductions that projection minted; returns how many it minted (the last
    /// that many of [`Session::log`]). This is the one call a host makes before each model
    /// call, with the messages added since the last one.
    ///
    /// The view and log are then exactly what [`Reducer::project`] gives for the same batches
    /// (a call still waiting for its result stays as it is; [`Session::request_body`] closes).
    /// Cost: linear in the bytes of the new messages plus the tool results leaving the
    /// protected window, as for [`Reducer::project`], plus one store record per message and
    /// per reduction (each synced as the [`SyncPolicy`] says).
    ///
    /// # Errors
    ///
    /// [`Error::Store`] when a record cannot be written. When a message record fails, the
    /// batch is undone: nothing of it is projected, and the records of its earlier messages
    /// are cut off again with a rewind record (after an I/O error the store takes no more
    /// records; reopening it then gives the messages whose records were written). When a
    /// reduction record fails, the messages stay recorded and projected, and the session takes
    /// no more records ([`Error::Diverged`] from then on): reopen it, which records the
    /// missing reductions. [`Error::Diverged`] after such a failure.
    pub fn push(&mut self, messages: impl IntoIterator<Item = Message>) -> Result<usize, Error> {
        self.push_cached(messages, CacheState::Warm)
    }

    /// [`Session::push`] told what the provider's prompt cache holds
    /// ([`Reducer::project_cached`]): a host that knows the time since its last request
    /// passes [`CacheState::Idle`], so the reductions waiting for their batch are shown when
    /// the cache has expired anyway (docs/COST.md, "Cache-aware minting").
    ///
    /// # Errors
    ///
    /// As [`Session::push`].
    pub fn push_cached(
        &mut self,
        messages: impl IntoIterator<Item = Message>,
        cache: CacheState,
    ) -> Result<usize, Error> {
        self.check_writable()?;
        let messages: Vec<Message> = messages.into_iter().collect();
        let before = self.store.state().messages.len() as u64;
        for (i, message) in messages.iter().enumerate() {
            if let Err(e) = self.store.append_message(message) {
                if i > 0 && self.store.rewind(before).is_err() {
                    self.diverged = true;
                }
                return Err(e.into());
            }
        }
        let minted = self.reducer.project_cached(messages, cache);
        self.record_minted(minted)?;
        Ok(minted)
    }

    /// The reduced view: the messages the model is sent, in order (stubs where reductions
    /// stand, every other message borrowed from the history). A call still waiting for its
    /// result is left as it is; [`Session::request_body`] writes the closed form.
    pub fn view(&self) -> View<'_> {
        self.reducer.view()
    }

    /// The reduction log: every reduction minted so far, in order (ids `r<ordinal>.<hex>`,
    /// the ordinal being the log position; docs/FORMATS.md, "Reduction log"). The store
    /// holds the same log.
    pub fn log(&self) -> &ReductionLog {
        self.reducer.log()
    }

    /// How many reductions wait for their batch under cache-aware minting, and the wire bytes
    /// they would save together ([`Reducer::waiting`]). They are not in [`Session::log`] nor
    /// recorded until shown.
    pub fn waiting(&self) -> (usize, usize) {
        self.reducer.waiting()
    }

    /// The full-fidelity history: every message pushed, in order, on the current timeline
    /// (the minted view every reduction points into by 0-based message index). Equal to the
    /// recorded messages but for the reasoning artifacts a model switch dropped.
    pub fn history(&self) -> &[Message] {
        self.reducer.history()
    }

    /// The store's state: the recorded messages (full fidelity, reasoning included), the log,
    /// the rewinds, model switches, summaries and misses recorded, and the record count
    /// (docs/FORMATS.md, "Session store"). This is what `rehydrate_signals` reads.
    pub fn state(&self) -> &StoreState {
        self.store.state()
    }

    /// The session store's file.
    pub fn path(&self) -> &Path {
        self.store.path()
    }

    /// The policy the session projects under.
    pub fn policy(&self) -> &ReductionPolicy {
        self.reducer.policy()
    }

    /// How many reductions [`Session::open`] minted and recorded because the store did not
    /// hold them (0 for a session reopened as it was closed, and for [`Session::create`]);
    /// they are the first ones after the recorded log, in [`Session::log`].
    pub fn recovered(&self) -> usize {
        self.recovered
    }

    /// The view as a request body for `api` (an OpenAI chat-completions or Anthropic Messages
    /// body as JSON bytes; docs/FORMATS.md, "OpenAI chat-completions body", "Anthropic Messages
    /// body"), the session treated as complete: a call still waiting for its result gets a
    /// synthetic result saying it got none ([`Reducer::request_body`]; docs/FORMATS.md,
    /// "Pairing repairs").
    ///
    /// The repairs that minted are recorded like any reduction (a stub in the body names a
    /// reduction the log holds). The live view stays open: [`Session::view`] drops those
    /// synthetic results again, as the next [`Session::push`] would, so the view is the same
    /// after a reopen.
    ///
    /// # Errors
    ///
    /// [`Error::Request`] when the view breaks a rule no pairing repair covers (no message to
    /// send, a system content part that is not text, an empty text part); [`Error::Store`]
    /// when a repair cannot be recorded; [`Error::Diverged`] after an earlier failed record.
    pub fn request_body(&mut self, api: Api) -> Result<Vec<u8>, Error> {
        self.check_writable()?;
        let before = self.reducer.log().len();
        let body = self.reducer.request_body(api);
        // Reopens the view: projecting no message drops the synthetic results of the close
        // and mints nothing.
        self.reducer.project(std::iter::empty());
        self.record_minted(self.reducer.log().len() - before)?;
        body.map_err(|source| Error::Request {
            path: self.path().to_path_buf(),
            source,
        })
    }

    /// Answers one intrinsic call of the model: `name` is the tool (`expand_reduction` or
    /// `sidecar_search`) and `arguments` the raw JSON text the model wrote. Resolves against
    /// the log, the history as the minted view and the recorded messages
    /// (`Sources::with_recorded`; docs/FORMATS.md, "Two resolution sources", "Agent
    /// intrinsics").
    ///
    /// Never fails: a bad call is a tool result with `is_error` set whose content is
    /// `Error: <message>` naming what to fix. The call and its result are not recorded: the
    /// host pushes them like any other messages. A host that tracks misses records them with
    /// [`Session::record_miss`].
    ///
    /// `sidecar_search` hashes each reduction once per session: what verified is remembered
    /// ([`VerifiedCache`]) until a rewind or a model switch changes the history, so a second
    /// search costs the search alone ([`Intrinsics::call_cached`]).
    pub fn call(&self, name: &str, arguments: &str) -> ToolResult {
        let context = CallContext {
            log: self.reducer.log(),
            sources: Sources::with_recorded(self.reducer.history(), &self.store.state().messages),
        };
        // Only this call takes the lock, and a call that panicked left the cache whole: each
        // change to it is one insert.
        let mut verified = self.verified.lock().unwrap_or_else(PoisonError::into_inner);
        Intrinsics::call_cached(name, arguments, &context, &mut verified)
    }

    /// Forgets what `sidecar_search` verified: the history is about to change other than by
    /// growing.
    fn forget_verified(&mut self) {
        self.verified
            .get_mut()
            .unwrap_or_else(PoisonError::into_inner)
            .clear();
    }

    /// The tool definitions to advertise to the model: `expand_reduction` then
    /// `sidecar_search`, in `format` (OpenAI function tools or Anthropic tools; docs/FORMATS.md,
    /// "Agent intrinsics"). A session always has a reduction policy, so both are advertised.
    pub fn tools(&self, format: ToolFormat) -> Vec<serde_json::Value> {
        tool_definitions(format)
    }

    /// Truncates the session to its first `to` messages (to re-run from there), recorded as a
    /// rewind ([`SessionStore::rewind`]): the history keeps its first `to` messages, the log
    /// is cut before its first reduction that addresses a later one (it stays a prefix, so
    /// every id keeps its ordinal), and the reducer is rebuilt from them. What the rebuilt
    /// projection mints (decisions the cut log had made for the messages kept) is recorded;
    /// returns how many.
    ///
    /// The reducer has no rewind of its own, so this costs a whole projection of the kept
    /// messages (linear in their bytes: every tool result is hashed again).
    ///
    /// # Errors
    ///
    /// [`Error::Store`]: a rewind to more messages than the session holds (nothing changes),
    /// or a record that cannot be written; [`Error::Diverged`] after an earlier failed record.
    pub fn rewind(&mut self, to: usize) -> Result<usize, Error> {
        self.check_writable()?;
        self.store.rewind(u64::try_from(to).unwrap_or(u64::MAX))?;
        self.forget_verified();
        let policy = self.reducer.policy().clone();
        let old = std::mem::replace(&mut self.reducer, Reducer::new(policy.clone()));
        let (mut history, _) = old.into_parts();
        history.truncate(to);
        self.reducer = Reducer::resume(policy, self.store.state().log.clone());
        // The kept messages are the ones sent before: cached.
        let cached = CacheState::Prefix(history.len());
        let minted = self.reducer.project_cached(history, cached);
        self.record_minted(minted)?;
        Ok(minted)
    }

    /// Switches the session to `model` (as the host names it): every message of the history
    /// loses its reasoning artifacts, whole ([`rehydrate_model::filter_reasoning_artifacts`];
    /// SPEC seed 000 rules 22-23), and the switch is recorded ([`SessionStore::switch_model`]);
    /// the store's messages keep them. Returns how many messages lost something.
    ///
    /// The reducer is rebuilt from the filtered history and the log: a reduction whose bytes
    /// held reasoning no longer verifies and its message is decided again; what that mints is
    /// recorded. Costs a whole projection (linear in the bytes of the history).
    ///
    /// # Errors
    ///
    /// [`Error::Store`] when a record cannot be written (the history has then lost its
    /// reasoning already, and the session takes no more records: [`Error::Diverged`]);
    /// [`Error::Diverged`] after an earlier failed record.
    pub fn switch_model(&mut self, model: &str) -> Result<usize, Error> {
        self.check_writable()?;
        self.forget_verified();
        let policy = self.reducer.policy().clone();
        let old = std::mem::replace(&mut self.reducer, Reducer::new(policy.clone()));
        let (mut history, log) = old.into_parts();
        let switched = self.store.switch_model(model, &mut history);
        self.reducer = Reducer::resume(policy, log);
        // A provider caches per model: the next request is written whole anyway, so every
        // waiting reduction is shown.
        let minted = self.reducer.project_cached(history, CacheState::Cold);
        let touched = match switched {
            Ok(touched) => touched,
            Err(e) => {
                self.diverged = true;
                return Err(e.into());
            }
        };
        self.record_minted(minted)?;
        Ok(usize::try_from(touched).unwrap_or(usize::MAX))
    }

    /// The session with every reduction inverted, in `format`: canonical JSONL (one message a
    /// line), or an OpenAI or Anthropic request body ([`export_session`]; docs/FORMATS.md,
    /// "Export"). The messages are the history's, byte for byte: exactly what was pushed
    /// (reasoning dropped by a model switch stays dropped). Clones the view once (linear in
    /// its bytes). After a model switch only the reductions the view shows are checked: one
    /// minted over reasoning the history no longer holds stands for nothing in the view, and
    /// expanding it is an error (a digest mismatch naming it), never other bytes.
    ///
    /// # Errors
    ///
    /// [`Error::Export`] when a reduction does not verify or the view does not invert, or, for
    /// a request body, when the inverted session is not a valid one (a call still waiting for
    /// its result, a rule no repair covers).
    pub fn export(&self, format: ExportFormat) -> Result<Vec<u8>, Error> {
        let view = self.reducer.view().to_vec();
        let log = self.reducer.log();
        // After a model switch, reductions minted over reasoning the history no longer holds do
        // not verify against it; the view stands for none of them (its messages were decided
        // again), and inverting it needs only the reductions it shows.
        let export = if self.store.state().reasoning_dropped > 0 {
            export_shown
        } else {
            export_session
        };
        export(&view, log, self.reducer.history(), format).map_err(|source| Error::Export {
            path: self.path().to_path_buf(),
            source,
        })
    }

    /// Records a compaction summary the host wrote, at the next epoch, retiring the earlier
    /// summaries whose epochs `retires` lists ([`SessionStore::record_summary`]; SPEC seed
    /// 002); returns its epoch (0 for the first).
    ///
    /// # Errors
    ///
    /// [`Error::Store`] when the record cannot be written.
    pub fn record_summary(&mut self, text: &str, retires: &[u64]) -> Result<u64, Error> {
        Ok(self.store.record_summary(text, retires)?)
    }

    /// Records an expand or search miss the host met ([`SessionStore::record_miss`]), for the
    /// divergence signals (`rehydrate_signals`).
    ///
    /// # Errors
    ///
    /// [`Error::Store`] when the record cannot be written.
    pub fn record_miss(&mut self, reduction_id: &str, reason: MissReason) -> Result<(), Error> {
        Ok(self.store.record_miss(reduction_id, reason)?)
    }

    /// Syncs every record appended so far to the disk (`fdatasync`), whatever the
    /// [`SyncPolicy`].
    ///
    /// # Errors
    ///
    /// [`Error::Store`] when the sync fails.
    pub fn sync(&mut self) -> Result<(), Error> {
        Ok(self.store.sync()?)
    }

    /// Refuses to record once the store no longer matches the live session.
    fn check_writable(&self) -> Result<(), Error> {
        if self.diverged {
            return Err(Error::Diverged {
                path: self.path().to_path_buf(),
            });
        }
        Ok(())
    }

    /// Records the last `minted` reductions of the log.
    fn record_minted(&mut self, minted: usize) -> Result<(), Error> {
        let log = self.reducer.log();
        for r in &log.reductions[log.len() - minted..] {
            if let Err(e) = self.store.append_reduction(r) {
                self.diverged = true;
                return Err(e.into());
            }
        }
        Ok(())
    }
}
