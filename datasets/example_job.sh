#!/bin/bash
#SBATCH --job-name=relax
#SBATCH --account=bio
#SBATCH --partition=cpu
#SBATCH --ntasks=32
#SBATCH --cpus-per-task=2
#SBATCH --time=4:00:00

srun ./relax input.dat
