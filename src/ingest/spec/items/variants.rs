//! Unit tests of the forms spec files take as people and agents write them: localized
//! templates, Kiro plans written as headings, optional tasks, requirement ranges and late
//! `_Requirements_` lines, phase notes.

use super::tests::{ids, refs};
use super::*;
use crate::ingest::spec::scope_of;

#[test]
fn localized_speckit_stories_and_phases() {
    let scope = scope_of("specs/001-worktree/spec.md").unwrap();
    let body = "# 機能仕様\n\n## ユーザーシナリオとテスト *(必須)*\n\n### ユーザーストーリー 1 - Worktree配下のみでの更新 (優先度: P1)\n\n開発者が…\n\n**受け入れシナリオ**:\n\n1. **前提条件** A\n\n### ユーザーストーリー 2 - 一括クリーンアップ（優先度: P0）\n\nB\n\n### Historia de Usuario 3 - Consultar el historial (Prioridad: P2)\n\nC\n\n### Récit utilisateur 4 - Exporter (Priorité : P3)\n\nD\n";
    let items = crate::ingest::spec::items(&scope, body, 1);
    let got: Vec<(&str, &str, Option<&str>)> = items
        .iter()
        .map(|i| (i.local.as_str(), i.title.as_str(), i.priority.as_deref()))
        .collect();
    assert_eq!(
        got,
        vec![
            ("US1", "Worktree配下のみでの更新 (優先度: P1)", Some("P1")),
            ("US2", "一括クリーンアップ（優先度: P0）", Some("P0")),
            ("US3", "Consultar el historial (Prioridad: P2)", Some("P2")),
            ("US4", "Exporter (Priorité : P3)", Some("P3")),
        ]
    );
    let scope = scope_of("specs/001-worktree/tasks.md").unwrap();
    let body = "# タスク\n\n## フェーズ 1: セットアップ\n\n- [x] T001 作成\n\n## フェーズ 2: 基盤\n\n- [x] T002 基盤\n\n\
## フェーズ 3: ユーザーストーリー 1 - 更新 (優先度: P1) 🎯 MVP\n\n- [ ] T003 [US1] 実装\n\n## Fase 4: US2 - Limpieza（P1）\n\n- [ ] T004 [US2] Limpiar\n";
    let items = crate::ingest::spec::items(&scope, body, 1);
    let t = |id: &str| items.iter().find(|i| i.local == id).unwrap();
    assert_eq!(t("phase-3").priority.as_deref(), Some("P1"));
    // Story phases wait for the phases before the first story phase, not each other.
    assert_eq!(
        refs(t("phase-3")),
        vec![
            (EdgeType::Relates, "US1"),
            (EdgeType::DependsOn, "phase-1"),
            (EdgeType::DependsOn, "phase-2")
        ]
    );
    assert_eq!(
        refs(t("phase-4")),
        vec![
            (EdgeType::Relates, "US2"),
            (EdgeType::DependsOn, "phase-1"),
            (EdgeType::DependsOn, "phase-2")
        ]
    );
}

#[test]
fn phase_notes_are_not_second_phases() {
    let scope = scope_of("specs/004-x/tasks.md").unwrap();
    let body = "# Tasks\n\n## Phase 3: Export\n\n- [x] T010 Do it\n\n## Phase 3 completion (2026-05-31)\n\nAll done.\n\n\
### Phase 5 prep — notes\n\n- [ ] T011 Loose task\n\n## Phase 4: Polish\n\n- [ ] T012 Docs\n\n## Phase 4: Polish again\n\n- [ ] T013 More\n\n### Phase 4.1: Sub\n\n- [ ] T014 Sub\n";
    let items = crate::ingest::spec::items(&scope, body, 1);
    assert_eq!(
        ids(&items),
        vec![
            ("phase-3", "Phase", Some("done"), None),
            ("T010", "Task", Some("done"), Some("phase-3")),
            ("T011", "Task", Some("open"), None),
            ("phase-4", "Phase", Some("open"), None),
            ("T012", "Task", Some("open"), Some("phase-4")),
            // A number written twice numbers a second phase; a dotted one a sub-phase.
            ("phase-4-2", "Phase", Some("open"), None),
            ("T013", "Task", Some("open"), Some("phase-4-2")),
            ("phase-4.1", "Phase", Some("open"), None),
            ("T014", "Task", Some("open"), Some("phase-4.1")),
        ]
    );
}

#[test]
fn kiro_tasks_written_as_headings() {
    let scope = scope_of(".kiro/specs/landing/tasks.md").unwrap();
    // A Spanish plan: each task a heading over its criteria as unnumbered boxes.
    let body = "# Plan de Implementación\n\n## Fase 1: Base\n\n### ✅ Tarea 1.1: Estructura\n\n- [x] 4 cards con iconos correctos\n- [x] Layout responsive\n\n\
### Tarea 1.2: Estilos\n\n- [x] Colores\n- [ ] Tipografía\n\n### Tarea 1.3: Pruebas\n\n**Estado:** Pendiente\n";
    let items = crate::ingest::spec::items(&scope, body, 1);
    assert_eq!(
        ids(&items),
        vec![
            ("phase-1", "Phase", Some("in progress"), None),
            ("1.1", "Task", Some("done"), Some("phase-1")),
            ("1.2", "Task", Some("in progress"), Some("phase-1")),
            ("1.3", "Task", Some("open"), Some("phase-1")),
        ]
    );
    assert_eq!(items[1].title, "Estructura");
    // `### Task PWA-1:`, `## Task 1:` over sub-tasks with `**Validates: …**`, `### - [x] 1.`.
    let body = "# Tasks\n\n### Task PWA-1: Manifest\n\n**Status:** Done\n\n- [x] manifest.json\n\n\
## Task 2: Service worker\n\n**Validates: Requirements 1.2, 3.1-3.3**\n\n- [x] 2.1 Register\n- [ ] 2.2 Cache\n\n\
### - [x] 3. Icons\n\n- [x] 3.1 Sizes\n";
    let items = crate::ingest::spec::items(&scope, body, 1);
    assert_eq!(
        ids(&items),
        vec![
            ("PWA-1", "Task", Some("done"), None),
            ("2", "Task", Some("in progress"), None),
            ("2.1", "Task", Some("done"), Some("2")),
            ("2.2", "Task", Some("open"), Some("2")),
            ("3", "Task", Some("done"), None),
            ("3.1", "Task", Some("done"), Some("3")),
        ]
    );
    let t = |id: &str| items.iter().find(|i| i.local == id).unwrap();
    assert_eq!(
        refs(t("2")),
        vec![
            (EdgeType::Relates, "R1.2"),
            (EdgeType::Relates, "R3.1"),
            (EdgeType::Relates, "R3.2"),
            (EdgeType::Relates, "R3.3"),
            (EdgeType::DependsOn, "PWA-1"),
        ]
    );
}

#[test]
fn a_box_is_a_kiro_task_by_its_id_never_a_count() {
    let scope = scope_of(".kiro/specs/landing/tasks.md").unwrap();
    let items = crate::ingest::spec::items(&scope, "- [x] 4 cards con iconos correctos\n- [ ] 5. Real task\n", 1);
    assert_eq!(ids(&items), vec![("5", "Task", Some("open"), None)]);
}

#[test]
fn optional_kiro_tasks_hold_nothing() {
    let scope = scope_of(".kiro/specs/x/tasks.md").unwrap();
    let body = "- [ ] 1. A\n  - [x] 1.1 Build\n  - [ ]* 1.2 Optional tests\n  - [ ] 1.3 Wire\n- [ ]* 2. Optional docs\n- [ ] 3. Ship\n";
    let items = crate::ingest::spec::items(&scope, body, 1);
    let t = |id: &str| items.iter().find(|i| i.local == id).unwrap();
    assert_eq!(refs(t("1.2")), vec![(EdgeType::DependsOn, "1.1")]);
    assert_eq!(refs(t("1.3")), vec![(EdgeType::DependsOn, "1.1")]);
    assert_eq!(refs(t("3")), vec![(EdgeType::DependsOn, "1")]);
    assert!(t("2").optional && t("1.2").optional && !t("3").optional);
}

#[test]
fn requirement_ranges_and_late_requirement_lines_cite() {
    let scope = scope_of(".kiro/specs/x/tasks.md").unwrap();
    let body = "- [ ] 1. Setup\n  - _Requirements: 1.1-1.3, 2_\n- [ ] 2. Client\n  - [ ] 2.1 File\n  - [ ] 2.2 Tests\n  - _Requirements: 4.2_\n\
- [ ] 3. Other\n  - [ ] 3.1 Sub\n  _Requirements: 5.1_\n";
    let items = crate::ingest::spec::items(&scope, body, 1);
    let t = |id: &str| items.iter().find(|i| i.local == id).unwrap();
    assert_eq!(
        refs(t("1")),
        vec![
            (EdgeType::Relates, "R1.1"),
            (EdgeType::Relates, "R1.2"),
            (EdgeType::Relates, "R1.3"),
            (EdgeType::Relates, "R2")
        ]
    );
    assert!(
        refs(t("2")).contains(&(EdgeType::Relates, "R4.2")),
        "{:?}",
        refs(t("2"))
    );
    assert!(!refs(t("2.2")).contains(&(EdgeType::Relates, "R4.2")));
    assert!(
        refs(t("3")).contains(&(EdgeType::Relates, "R5.1")),
        "{:?}",
        refs(t("3"))
    );
}
