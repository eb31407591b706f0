# Run by `rule evaluate`; the work is in straggler.run.pipeline.evaluate_batch.
import logging
from pathlib import Path

logging.basicConfig(filename=snakemake.log[0], level=logging.INFO)

from straggler.run.pipeline import evaluate_batch

evaluate_batch(
    snakemake.params.resolved,
    list(snakemake.params.cells),
    list(snakemake.params.cell_keys),
    Path(snakemake.output[0]).parents[1],  # results/<study>/units/<batch>.json
    snakemake.output[0],
)
