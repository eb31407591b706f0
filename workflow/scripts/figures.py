# Run by the `figures_<part>` rules; the work is in straggler.run.pipeline.figures.
import logging
from pathlib import Path

logging.basicConfig(filename=snakemake.log[0], level=logging.INFO)

from straggler.run.pipeline import figures

figures(
    snakemake.input[0],
    Path(snakemake.output.png[0]).parent,
    list(snakemake.params.names),
    capacity_csv=snakemake.input.located[0] if snakemake.input.located else None,
)
