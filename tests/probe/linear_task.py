"""The smallest training task the probe's scripts share: a linear regression on fixed
random data, trained by SGD one full batch a step, as a user's first loop does.

    task = LinearTask(features=8, batch=32, lr=0.05)
    loss = task.step()  # zero_grad, forward, MSE, backward, optimizer step: the loss
"""
import torch
from torch import nn


class LinearTask(object):
    def __init__(self, features, batch, lr, seed=0):
        torch.manual_seed(seed)
        self.model = nn.Linear(features, 1)
        self.optimizer = torch.optim.SGD(self.model.parameters(), lr=lr)
        self.inputs, self.targets = torch.randn(batch, features), torch.randn(batch, 1)

    def step(self):
        self.optimizer.zero_grad()
        loss = nn.functional.mse_loss(self.model(self.inputs), self.targets)
        loss.backward()
        self.optimizer.step()
        return loss
