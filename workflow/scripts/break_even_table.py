# Run by `rule break_even_table`; the work is in straggler.run.pipeline.break_even_csv.
import logging

logging.basicConfig(filename=snakemake.log[0], level=logging.INFO)

from straggler.run.pipeline import break_even_csv

break_even_csv(list(snakemake.input), snakemake.output[0])
