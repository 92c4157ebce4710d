//! The backlog's shapes shared by the layers: the state groups, an item as `list`,
//! `ready` and `tree` print it, and the rows of the SQLite mirror's `backlog` table,
//! which the query layer computes and the store keeps and reads back.

use super::Kind;
use serde::Serialize;

/// Where a state stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Group {
    /// Not started.
    Open,
    /// Being worked on.
    InProgress,
    /// Waiting on something.
    Blocked,
    /// Finished.
    Done,
    /// Will not be done.
    Dropped,
}

impl Group {
    /// Every group, in workflow order.
    pub const ALL: [Group; 5] = [
        Group::Open,
        Group::InProgress,
        Group::Blocked,
        Group::Done,
        Group::Dropped,
    ];

    /// Its name in output and filters.
    pub fn as_str(self) -> &'static str {
        match self {
            Group::Open => "open",
            Group::InProgress => "in_progress",
            Group::Blocked => "blocked",
            Group::Done => "done",
            Group::Dropped => "dropped",
        }
    }

    /// The group named `name` (as [`Group::as_str`] writes it).
    pub fn from_name(name: &str) -> Option<Group> {
        Group::ALL.into_iter().find(|g| g.as_str() == name)
    }

    /// The group a state name every backlog uses belongs to (`done`, `won't do`, `in
    /// review`, `to do`, …), given folded (`fold_state`); None for other names.
    pub fn builtin(folded: &str) -> Option<Group> {
        Some(match folded {
            "done" | "closed" | "resolved" | "complete" | "completed" | "finished" | "final" | "merged" | "shipped"
            | "released" | "fixed" | "living" => Group::Done,
            "dropped" | "cancelled" | "canceled" | "wontdo" | "wontfix" | "rejected" | "withdrawn" | "obsolete"
            | "abandoned" | "duplicate" | "superseded" | "deprecated" | "stagnant" | "moved" => Group::Dropped,
            "blocked" | "onhold" | "waiting" | "paused" => Group::Blocked,
            "inprogress" | "doing" | "active" | "started" | "review" | "inreview" | "wip" | "testing" | "lastcall" => {
                Group::InProgress
            }
            // BMAD v6's story statuses before work starts: drafted, then ready-for-dev.
            "todo" | "open" | "new" | "ready" | "planned" | "proposed" | "backlog" | "notstarted" | "drafted"
            | "readyfordev" => Group::Open,
            // BMAD v4's dev agent hands a story over as "Ready for Review".
            "readyforreview" => Group::InProgress,
            _ => return localized(folded),
        })
    }

    /// Finished either way: done or dropped.
    pub fn is_closed(self) -> bool {
        matches!(self, Group::Done | Group::Dropped)
    }
}

/// The states of the other languages spec templates and backlogs are written in
/// (Spanish, Portuguese, French, German, Italian, Japanese, Chinese, Korean), folded:
/// `Estado: Completado`, `ステータス: 完了`, `Statut : Terminé`.
fn localized(folded: &str) -> Option<Group> {
    Some(match folded {
        "completado" | "completada" | "terminado" | "terminada" | "hecho" | "hecha" | "finalizado" | "finalizada"
        | "cerrado" | "resuelto" | "concluído" | "concluido" | "concluída" | "feito" | "terminé" | "terminée"
        | "fait" | "complété" | "achevé" | "fini" | "erledigt" | "abgeschlossen" | "fertig" | "completato"
        | "fatto" | "terminato" | "完了" | "完了済み" | "済み" | "対応済み" | "実装済み" | "完成" | "已完成"
        | "完了済" | "완료" | "완료됨" => Group::Done,
        "cancelado" | "cancelada" | "descartado" | "descartada" | "abandonado" | "annulé" | "abandonné"
        | "abgebrochen" | "verworfen" | "annullato" | "中止" | "取り消し" | "却下" | "已取消" | "취소" => {
            Group::Dropped
        }
        "bloqueado" | "bloqueada" | "bloqué" | "bloquée" | "blockiert" | "bloccato" | "保留" | "ブロック" | "阻塞"
        | "已阻塞" | "차단" | "보류" => Group::Blocked,
        "enprogreso" | "encurso" | "enproceso" | "enprogresso" | "emandamento" | "emprogresso" | "encours"
        | "inbearbeitung" | "inarbeit" | "incorso" | "進行中" | "作業中" | "対応中" | "実装中" | "レビュー中"
        | "进行中" | "진행중" | "enrevisión" | "enrevision" | "enrévision" => Group::InProgress,
        "pendiente" | "porhacer" | "abierto" | "nuevo" | "pendente" | "afazer" | "àfaire" | "afaire" | "ouvert"
        | "nouveau" | "offen" | "neu" | "dafare" | "aperto" | "未着手" | "未対応" | "未完了" | "待办" | "未开始"
        | "대기" | "예정" => Group::Open,
        _ => return None,
    })
}

/// The type of a Spec Kit `## Phase N` heading: a group of tasks whose state is theirs
/// rolled up, never work of its own (a tree counts its tasks, not it).
pub const PHASE: &str = "Phase";

/// A state name folded for comparison: lowercase, without spaces, `-`, `_` and
/// apostrophes (`Won't Do` → `wontdo`).
pub fn fold_state(s: &str) -> String {
    s.chars()
        .filter(|c| !c.is_whitespace() && !matches!(c, '-' | '_' | '\'' | '’'))
        .flat_map(char::to_lowercase)
        .collect()
}

/// One item in a listing.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Item {
    /// Node id.
    pub id: String,
    /// Root-relative path.
    pub path: String,
    /// Title.
    pub title: String,
    /// Work item type or document type.
    pub r#type: Option<String>,
    /// State as written.
    pub state: Option<String>,
    /// Its state's group.
    pub group: Group,
    /// Parent id, when it has one.
    pub parent: Option<String>,
    /// The `priority` field, when there is one.
    pub priority: Option<String>,
}

/// One item that can start now.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Ready {
    /// The item.
    #[serde(flatten)]
    pub item: Item,
    /// Unfinished items waiting on it, directly or not.
    pub unblocks: usize,
    /// Why it is ready.
    pub why: String,
}

/// What the mirror's `backlog` table holds: per document, what `list` filters on and
/// what `ready` answers, computed once when the mirror is written so that those
/// questions read only the rows they print.
#[derive(Debug, Default)]
pub struct BacklogTable {
    /// One row per document.
    pub rows: Vec<BacklogRow>,
    /// The blocker cycles `ready` reports.
    pub cycles: Vec<Vec<String>>,
}

/// One document's row of the `backlog` table: the item as `list` and `ready` print it,
/// and what they filter and order on.
#[derive(Debug, Clone, PartialEq)]
pub struct BacklogRow {
    /// The item.
    pub item: Item,
    /// Node kind.
    pub kind: Kind,
    /// Its state folded as `list --state` compares states.
    pub folded: Option<String>,
    /// Its place in `ready`'s answer (from 0), when it is ready.
    pub ready: Option<usize>,
    /// Unfinished items waiting on it (when it is ready).
    pub unblocks: usize,
    /// Why it is ready (when it is).
    pub why: Option<String>,
}

/// The filters of `list` that the `backlog` table answers.
#[derive(Debug, Default)]
pub struct ListQuery<'a> {
    /// Types as typed, each with its lowercase form: a type equal ignoring ASCII case, or
    /// a kind equal to the lowercase form, matches.
    pub types: Vec<(&'a str, String)>,
    /// States folded (see [`BacklogRow::folded`]), each with the state as typed: a
    /// folded state equal to the first, or a group named by the second, matches.
    pub states: Vec<(String, &'a str)>,
    /// Under this parent: its children, or with `true` every descendant (never itself).
    pub parent: Option<(&'a str, bool)>,
}
