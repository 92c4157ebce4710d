# `make index` after editing Markdown; `make check` in CI and pre-commit hooks.
# Uses an installed mdgraph when there is one, else builds this checkout.
MDGRAPH ?= $(shell command -v mdgraph 2>/dev/null || echo cargo run --release --quiet --)

.PHONY: index check
index:
	@$(MDGRAPH) index --quiet
check:
	@$(MDGRAPH) check
