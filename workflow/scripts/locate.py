# Run by `rule locate`; the work is in straggler.run.pipeline.locate.
import logging
from pathlib import Path

logging.basicConfig(filename=snakemake.log[0], level=logging.INFO)

from straggler.run.pipeline import locate

locate(
    list(snakemake.input),
    snakemake.output.capacity,
    snakemake.output.crossovers,
    Path(snakemake.output.png).parent,
)
