# Run by `rule break_even`; the work is in straggler.run.pipeline.break_even.
import logging
from pathlib import Path

logging.basicConfig(filename=snakemake.log[0], level=logging.INFO)

from straggler.run.pipeline import break_even

break_even(
    snakemake.params.resolved,
    snakemake.input[0],
    dict(snakemake.params.setting),
    Path(snakemake.input[0]).parent / "sim",  # the cells' stores: results/<study>/sim
    snakemake.output[0],
)
