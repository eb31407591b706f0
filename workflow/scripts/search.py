# Run by `rule search`; the work is in straggler.run.pipeline.search.
import logging
from pathlib import Path

logging.basicConfig(filename=snakemake.log[0], level=logging.INFO)

from straggler.run.pipeline import search

search(
    snakemake.params.resolved,
    snakemake.input[0],
    dict(snakemake.params.setting),
    Path(snakemake.input[0]).parent / "sim",  # the cells' stores: results/<study>/sim
    snakemake.output[0],
)
