"""A tiny Llama made on the spot for the real vLLM tier: a BPE tokenizer trained here and two
layers of random weights (fixed seed), saved as safetensors. Usage: make_model.py DIR"""
import sys

import torch
from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
from transformers import LlamaConfig, LlamaForCausalLM, PreTrainedTokenizerFast

out = sys.argv[1]
words = "the quick brown fox jumps over a lazy dog while seven wizards box and judge my vow".split()
corpus = [" ".join(words[(i * 7 + j) % len(words)] for j in range(12)) for i in range(400)]
tok = Tokenizer(models.BPE(unk_token="<unk>"))
tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
tok.decoder = decoders.ByteLevel()
special = ["<unk>", "<s>", "</s>"]
tok.train_from_iterator(corpus, trainers.BpeTrainer(vocab_size=362, special_tokens=special,
                                                    initial_alphabet=pre_tokenizers.ByteLevel.alphabet()))
fast = PreTrainedTokenizerFast(tokenizer_object=tok, unk_token="<unk>", bos_token="<s>", eos_token="</s>")
fast.save_pretrained(out)
# head_dim 64: vLLM's CPU attention refuses 16. max_position_embeddings is large so that a
# --max-model-len beyond the KV cache is refused by the KV-cache check, not the length check.
config = LlamaConfig(vocab_size=len(fast), hidden_size=128, intermediate_size=256, num_hidden_layers=2,
                     num_attention_heads=2, num_key_value_heads=1, max_position_embeddings=4194304,
                     bos_token_id=fast.bos_token_id, eos_token_id=fast.eos_token_id, torch_dtype="float32")
torch.manual_seed(0)
LlamaForCausalLM(config).save_pretrained(out, safe_serialization=True)
print(f"tiny llama: vocab {len(fast)}, {sum(p.numel() for p in LlamaForCausalLM(config).parameters())} parameters")
