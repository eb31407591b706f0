# Run by `rule aggregate`; the work is in straggler.run.pipeline.aggregate.
import logging

logging.basicConfig(filename=snakemake.log[0], level=logging.INFO)

from straggler.run.pipeline import aggregate

aggregate(
    snakemake.params.resolved,
    list(snakemake.params.cells),
    snakemake.output.dataset,
    snakemake.output.config,
    recorded_yaml=snakemake.params.recorded,
)
