# `make index` after editing Markdown; `make check` in CI and pre-commit hooks; `make site`
# writes the static HTML view (_index/site/, open _index/site/index.html).
# Uses an installed mdgraph when there is one, else builds this checkout.
MDGRAPH ?= $(shell command -v mdgraph 2>/dev/null || echo cargo run --release --quiet --)

.PHONY: index check site
index:
	@$(MDGRAPH) index --quiet
check:
	@$(MDGRAPH) check
site:
	@$(MDGRAPH) site --quiet
